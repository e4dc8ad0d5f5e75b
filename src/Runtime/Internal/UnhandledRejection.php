<?php

declare(strict_types=1);

namespace Nexus\Runtime\Internal;

use Nexus\Runtime\Exception\UnhandledRejectionException;
use Nexus\Runtime\Loop;

/**
 * Held by a future that failed while nobody was waiting for it. If the future is dropped before
 * anybody handles the failure, this reports it on the loop's next turn. Made only for such
 * futures, so a future that succeeds (or fails into a waiting caller) pays nothing for it.
 *
 * @internal
 */
final class UnhandledRejection
{
    public bool $handled = false;

    public function __construct(
        private readonly Loop $loop,
        private readonly \Throwable $error,
    ) {}

    public function __destruct()
    {
        if ($this->handled) {
            return;
        }
        $loop = $this->loop;
        $error = new UnhandledRejectionException($this->error);
        $loop->defer(static function () use ($loop, $error): void {
            $loop->reportError($error);
        });
    }
}
