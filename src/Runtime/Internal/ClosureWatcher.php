<?php

declare(strict_types=1);

namespace Nexus\Runtime\Internal;

use Nexus\Runtime\StreamWatcher;

/**
 * A closure given to Loop::onReadable() or onWritable(), called as the loop calls watchers.
 *
 * @internal
 */
final class ClosureWatcher implements StreamWatcher
{
    /**
     * @param resource                      $stream
     * @param \Closure(resource, int): void $callback
     */
    public function __construct(
        private readonly mixed $stream,
        private readonly \Closure $callback,
    ) {}

    public function streamReady(int $id): void
    {
        ($this->callback)($this->stream, $id);
    }
}
