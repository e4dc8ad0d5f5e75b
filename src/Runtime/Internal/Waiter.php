<?php

declare(strict_types=1);

namespace Nexus\Runtime\Internal;

use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Runnable;
use Nexus\Runtime\Scheduler;

/**
 * What wakes a fiber waiting in Future::await(): whatever ends the wait first (the future
 * settling, the timeout, a cancellation) wakes it once. Waking puts it on the scheduler's run
 * queue, where it resumes the fiber; woken by a runnable (an actor's reply), it runs right after
 * that one (Scheduler::resumeNext()).
 *
 * A fiber waits on one thing at a time, so each fiber has one Waiter (Scheduler::waiterFor()),
 * armed for each wait, with its two callbacks made once: making a closure costs about as much as
 * the rest of a wait, and a first-class callable ($waiter->wake(...)) also ends the tracing
 * JIT's trace there (PHP 8.2 does not compile it), leaving the rest of the wait to the
 * interpreter. Between waits it holds no fiber, so that the fiber can go.
 *
 * @internal
 */
final class Waiter implements Runnable
{
    /** Armed and not woken yet. */
    public bool $waiting = false;
    public ?CancelledException $cancelled = null;
    /** @var \Closure(): void calls wake() */
    public readonly \Closure $onWake;
    /** @var \Closure(CancelledException): void calls cancel() */
    public readonly \Closure $onCancel;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null the fiber that waits now */
    private ?\Fiber $fiber = null;

    public function __construct(private readonly Scheduler $scheduler)
    {
        $this->onWake = $this->wake(...);
        $this->onCancel = $this->cancel(...);
    }

    /**
     * Starts a wait of $fiber.
     *
     * @param \Fiber<mixed, mixed, mixed, mixed> $fiber
     */
    public function arm(\Fiber $fiber): void
    {
        $this->fiber = $fiber;
        $this->waiting = true;
        if ($this->cancelled !== null) {
            $this->cancelled = null;
        }
    }

    /**
     * The wait is over (the fiber runs again): lets go of the fiber.
     */
    public function disarm(): void
    {
        $this->fiber = null;
        if ($this->waiting) {
            $this->waiting = false; // a wait that ended early (timeout, cancellation): no wake comes
        }
    }

    public function wake(): void
    {
        if ($this->waiting) {
            $this->waiting = false;
            $this->scheduler->resumeNext($this);
        }
    }

    public function cancel(CancelledException $e): void
    {
        if ($this->waiting) {
            $this->cancelled ??= $e;
            $this->wake();
        }
    }

    public function run(): void
    {
        $fiber = $this->fiber;
        if ($fiber !== null && $fiber->isSuspended()) {
            $fiber->resume();
        }
    }
}
