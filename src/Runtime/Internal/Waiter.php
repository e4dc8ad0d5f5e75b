<?php

declare(strict_types=1);

namespace Nexus\Runtime\Internal;

use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Loop;

/**
 * A fiber waiting in Future::await(): whatever ends the wait first (the future settling, the
 * timeout, a cancellation) wakes it once, on the next loop turn. An object with methods rather
 * than closures over variables: each such closure carries a table of its captured variables,
 * made and freed on every await.
 *
 * @internal
 */
final class Waiter
{
    public bool $waiting = true;
    public ?CancelledException $cancelled = null;

    /**
     * @param \Fiber<mixed, mixed, mixed, mixed> $fiber
     */
    public function __construct(
        private readonly \Fiber $fiber,
        private readonly Loop $loop,
    ) {}

    public function wake(): void
    {
        if ($this->waiting) {
            $this->waiting = false;
            $this->loop->defer($this->resume(...));
        }
    }

    public function cancel(CancelledException $e): void
    {
        $this->cancelled ??= $e;
        $this->wake();
    }

    public function resume(): void
    {
        if ($this->fiber->isSuspended()) {
            $this->fiber->resume();
        }
    }
}
