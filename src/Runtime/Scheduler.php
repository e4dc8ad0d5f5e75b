<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * The run queue and its worker fibers.
 *
 * Runnables (actors with messages) are run in order from inside a worker fiber, a budget of them
 * per loop turn so that timers and I/O are served in between. When a runnable waits (awaits a
 * future), the fiber it runs in is handed over to it until it is resumed, and the next loop turn
 * continues the run queue in a fresh fiber taken from a pool. A fiber is therefore only created
 * when something actually waits, never one per actor. Making a fiber and freeing it costs ~10 µs,
 * so the pool keeps as many as were waiting at once lately: at least MIN_IDLE_FIBERS, at most
 * MAX_IDLE_FIBERS (1,024, about 20 MB). Once it has not been needed for IDLE_TRIM_AFTER (1 s),
 * the loop trims it back to what waits then (trimIdle(), when it is about to wait for I/O), so a
 * burst of waiting handlers does not keep its fibers' memory for ever; a fiber that finishes its
 * wait beyond the mark ends.
 *
 * A runnable may run under a Cancellation: every Future::await() in it ends with the
 * CancelledException once that is requested. A runnable that is itself a Cancellation (an HTTP
 * request under its handler's time limit) runs under itself, which costs it nothing until it
 * waits; any runnable can also set one (setCancellation()). It is kept across the runnable's
 * waits, like the current actor.
 */
final class Scheduler
{
    /** Fibers kept for reuse after a wait at most; one finishing its wait beyond the pool's mark ends instead. */
    public const MAX_IDLE_FIBERS = 1024;
    /** Fibers the pool may always keep, however few waited lately. */
    public const MIN_IDLE_FIBERS = 64;
    /** Seconds the pool may stay larger than needed before trimIdle() shrinks it. */
    public const IDLE_TRIM_AFTER = 1.0;

    /** @var list<Runnable> */
    private array $queue = [];
    /** @var list<Runnable> the part of the queue being drained */
    private array $batch = [];
    private int $position = 0;
    private int $batchSize = 0;
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null */
    private ?\Fiber $dispatcher = null;
    /** @var list<\Fiber<mixed, mixed, mixed, mixed>> */
    private array $idle = [];
    private int $fibersCreated = 0;
    private ?Cancellation $cancellation = null;
    /** Runnables the current run() may still start, over all the fibers it uses. */
    private int $remaining = 0;
    /** Fibers held by runnables that wait right now. */
    private int $waiting = 0;
    /** Idle fibers the pool keeps: the most that waited at once lately, within the bounds. */
    private int $keep = self::MIN_IDLE_FIBERS;
    /** More than half of $keep waited since the last trimIdle(). */
    private bool $needed = false;
    private float $neededAt = 0.0;

    /**
     * The actor whose handler runs right now (the implicit sender of what it tells), if any.
     */
    public ?Runnable $current = null;

    public function __construct(private readonly int $budget = 256)
    {
        if ($budget < 1) {
            throw new \InvalidArgumentException("The scheduler budget must be at least 1, got {$budget}.");
        }
    }

    public function schedule(Runnable $runnable): void
    {
        $this->queue[] = $runnable;
    }

    public function hasWork(): bool
    {
        return $this->position < $this->batchSize || $this->queue !== [];
    }

    /**
     * How many worker fibers were ever created (stays at one while nothing waits).
     */
    public function fibersCreated(): int
    {
        return $this->fibersCreated;
    }

    /**
     * Fibers waiting to be reused (at most MAX_IDLE_FIBERS).
     */
    public function idleFibers(): int
    {
        return \count($this->idle);
    }

    /**
     * The cancellation the running task is under, if any: the one set with setCancellation(), or
     * else the runnable being run when it is a Cancellation itself.
     */
    public function cancellation(): ?Cancellation
    {
        if ($this->cancellation !== null) {
            return $this->cancellation;
        }
        if ($this->dispatcher !== null && $this->dispatcher === \Fiber::getCurrent()) {
            // While this fiber drains the queue, the runnable it runs is the last one it took.
            $running = $this->batch[$this->position - 1] ?? null;

            return $running instanceof Cancellation ? $running : null;
        }

        return null;
    }

    /**
     * Puts the running task under $cancellation until it sets it back (null): a task calls it
     * around its own work. Waits inside end with its CancelledException once it is requested.
     */
    public function setCancellation(?Cancellation $cancellation): void
    {
        $this->cancellation = $cancellation;
    }

    /**
     * Drains up to the budget of runnables. Called by the loop, outside any fiber. When a runnable
     * waits, the fiber it ran in stays with it and the queue goes on in another fiber within the
     * same budget, so that a burst of handlers that each wait (an HTTP request asking an actor)
     * is started in one loop turn rather than one per turn.
     */
    public function run(): void
    {
        $this->remaining = $this->budget;
        do {
            $fiber = $this->dispatcher;
            if ($fiber === null) {
                $fiber = array_pop($this->idle);
                if ($fiber === null) {
                    $fiber = new \Fiber($this->work(...));
                    ++$this->fibersCreated;
                }
                $this->dispatcher = $fiber;
            }
            try {
                if ($fiber->isSuspended()) {
                    $fiber->resume();
                } else {
                    $fiber->start();
                }
            } catch (\Throwable $e) {
                // A runnable threw out of the worker fiber, which is now dead: the next run() continues
                // the queue in another fiber instead of trying to start this one again.
                if ($this->dispatcher === $fiber) {
                    $this->dispatcher = null;
                }
                $this->current = null;
                $this->cancellation = null;

                throw $e;
            }
            // The fiber came back either done with its budget or the queue (it is still the
            // dispatcher), or kept by a runnable that waits: then another one goes on.
        } while ($this->handedOver() && $this->remaining > 0 && $this->hasWork());
    }

    /**
     * Whether the dispatcher fiber was kept by a runnable that waits (the fiber changes it).
     */
    private function handedOver(): bool
    {
        return $this->dispatcher === null;
    }

    /**
     * Shrinks the pool of idle fibers to what waits now (at least MIN_IDLE_FIBERS) once it has not
     * been needed for IDLE_TRIM_AFTER seconds. The loop calls it when it is about to wait.
     */
    public function trimIdle(float $now): void
    {
        if ($this->needed) {
            $this->needed = false;
            $this->neededAt = $now;

            return;
        }
        if ($this->keep > self::MIN_IDLE_FIBERS && $now - $this->neededAt >= self::IDLE_TRIM_AFTER) {
            $this->keep = max(self::MIN_IDLE_FIBERS, $this->waiting);
            while (\count($this->idle) > $this->keep) {
                array_pop($this->idle);
            }
        }
    }

    /**
     * Suspends the running fiber until something resumes it; if it was draining the run queue,
     * the queue goes on in another fiber meanwhile.
     */
    public function suspend(): mixed
    {
        $fiber = \Fiber::getCurrent();
        if ($fiber === null) {
            throw new \LogicException('suspend() needs a fiber: it was called from top-level code.');
        }
        $current = $this->current;
        $cancellation = $this->cancellation();
        $this->cancellation = null;
        if ($fiber === $this->dispatcher) {
            $this->dispatcher = null;
            if (++$this->waiting > $this->keep >> 1) {
                $this->needed = true;
                if ($this->waiting > $this->keep) {
                    $this->keep = min(self::MAX_IDLE_FIBERS, $this->waiting);
                }
            }
        }
        try {
            return \Fiber::suspend();
        } finally {
            $this->current = $current;
            $this->cancellation = $cancellation;
        }
    }

    private function work(): void
    {
        $self = \Fiber::getCurrent();
        // A worker fiber lives as long as the scheduler, unless it ends beyond the idle cap.
        while (true) {
            while ($this->remaining > 0) {
                if ($this->position >= $this->batchSize) {
                    if ($this->queue === []) {
                        break;
                    }
                    $this->batch = $this->queue;
                    $this->queue = [];
                    $this->position = 0;
                    $this->batchSize = \count($this->batch);
                }
                --$this->remaining;
                $this->batch[$this->position++]->run();
                if ($this->dispatcher !== $self) {
                    // This fiber waited inside run() and another one took over the queue.
                    \assert($self !== null);
                    $this->current = null;
                    $this->cancellation = null;
                    --$this->waiting;
                    if (\count($this->idle) >= $this->keep) {
                        return; // enough fibers are kept: this one ends and its memory is freed
                    }
                    $this->idle[] = $self;
                    break;
                }
            }
            if ($this->position >= $this->batchSize && $this->batch !== []) {
                // A drained batch lets go of its runnables (requests, their bodies and answers)
                // instead of keeping them until the next batch replaces it.
                $this->batch = [];
            }
            $this->current = null;
            \Fiber::suspend();
        }
    }
}
