<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Internal\Waiter;
use Nexus\Trace\TraceContext;

/**
 * The run queue and its worker fibers.
 *
 * Runnables (actors with messages, requests, waiting tasks to resume) are run in order from
 * inside a worker fiber, a budget of them per loop turn so that timers and I/O are served in
 * between. When a runnable waits (awaits a future), the fiber it runs in is handed over to it and
 * the queue goes on in another fiber from a pool, within the same budget; once what it waits on
 * settles, a Waiter on the queue resumes it. A fiber is therefore only created when something
 * actually waits, never one per actor. Making a fiber and freeing it costs ~10 µs, so the pool
 * keeps as many as were waiting at once lately: at least MIN_IDLE_FIBERS, at most
 * MAX_IDLE_FIBERS (1,024, about 20 MB). Once it has not been needed for IDLE_TRIM_AFTER (1 s),
 * the loop trims it back to what waits then (trimIdle(), when it is about to wait for I/O), so a
 * burst of waiting handlers does not keep its fibers' memory for ever; a fiber that finishes its
 * wait beyond the mark ends.
 *
 * A task that asks an actor and waits for the answer is served depth first. When a runnable
 * is about to wait right after asking (ask() names the actor in $asked) and that actor is the
 * last one queued, the actor's turn runs at once in a helper fiber (runAsked()): if it answers
 * without waiting itself, the task goes on without waiting at all. Otherwise the task waits: the
 * actor runs next, ahead of the queue, and a waiting task that a runnable wakes (its answer
 * came) runs right after that runnable (resumeNext()). A handler that asks an actor is then
 * answered while its fiber's stacks are still in the CPU's cache, instead of after every other
 * runnable queued (at 1,000 connections, a thousand fibers waiting at once). Everything else
 * queues in order as before, so that an actor told by many others still handles their messages
 * in one turn. All this is bounded: at most NEXT_STREAK asked actors run at once, and at most
 * NEXT_STREAK runnables in a row come from the slot, before the queue's next one runs; one left
 * in the slot when a run() ends goes to the back of the queue; and each counts against the
 * budget. So timers and I/O wait no longer than before, and nothing queued waits for more than
 * a streak. Order between two actors is their mailboxes' business and does not change: this
 * only decides which runnable goes first.
 *
 * A runnable may run under a Cancellation: every Future::await() in it ends with the
 * CancelledException once that is requested. A runnable that is itself a Cancellation (an HTTP
 * request under its handler's time limit) runs under itself, which costs it nothing until it
 * waits; any runnable can also set one (setCancellation()). It is kept across the runnable's
 * waits, like the current actor.
 *
 * $trace is the trace context of the task running now (an HTTP request or an actor's message
 * being traced), null when it is not traced (always, with tracing off). It is kept across the
 * task's waits too, and is null for whatever the loop runs while the task waits.
 */
final class Scheduler
{
    /** Fibers kept for reuse after a wait at most; one finishing its wait beyond the pool's mark ends instead. */
    public const MAX_IDLE_FIBERS = 1024;
    /** Fibers the pool may always keep, however few waited lately. */
    public const MIN_IDLE_FIBERS = 64;
    /** Seconds the pool may stay larger than needed before trimIdle() shrinks it. */
    public const IDLE_TRIM_AFTER = 1.0;
    /**
     * One pooled fiber in this many is the one idle longest rather than the last one used. PHP
     * 8.2's tracing JIT records a trace across a Fiber::suspend() and starts no other trace until
     * that fiber runs again: a fiber that went idle while a trace was being recorded, and then
     * stayed at the bottom of the pool, would keep the JIT from compiling anything more for as
     * long as the process lives (seen as /counter running half interpreted). Resuming it ends the
     * recording. A power of two.
     */
    public const ROTATE_IDLE = 64;
    /** Runnables in a row that may come from the slot of what ran last, before the queue's next. */
    public const NEXT_STREAK = 8;

    /**
     * The run queue: the runnables from $head on wait their turn, the ones before it were taken.
     * Taking one only moves $head (a write to an array property costs far more than to an int
     * one); the list is emptied when everything was taken, and the taken part is cut off once it
     * is at least half of it (see compact()).
     *
     * @var list<Runnable>
     */
    private array $queue = [];
    private int $head = 0;
    /** What runs next, ahead of the queue: an asked actor, a woken task (see the class comment). */
    private ?Runnable $next = null;
    /** Inside run(): resumeNext() may fill $next. */
    private bool $running = false;
    /** @var list<\Fiber<mixed, mixed, mixed, mixed>> helper fibers waiting to run an asked actor (see runAsked()) */
    private array $helpers = [];
    /** The runnable the helper fiber resumed next is to run. */
    private ?Runnable $helping = null;
    /** Asked actors run by runAsked() since the queue last went on (bounded by NEXT_STREAK). */
    private int $helped = 0;
    /** @var list<\Throwable> what runnables run by helpers threw, for run() to pass on */
    private array $helperFailures = [];
    /** @var \Fiber<mixed, mixed, mixed, mixed>|null */
    private ?\Fiber $dispatcher = null;
    /** @var list<\Fiber<mixed, mixed, mixed, mixed>> */
    private array $idle = [];
    private int $fibersCreated = 0;
    /** Fibers taken from a pool, to go on with the queue or to run an asked actor (see ROTATE_IDLE). */
    private int $handovers = 0;
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
    /** @var \WeakMap<\Fiber<mixed, mixed, mixed, mixed>, Waiter> each fiber's waiter, made at its first wait */
    private \WeakMap $waiters;

    /**
     * The runnable that runs right now, kept across its waits: an actor (the implicit sender of
     * what it tells), a request, a waiting task resumed. Null between runnables and outside run().
     */
    public ?Runnable $current = null;

    /**
     * The trace context of the running task: what it sends and queries carry as their parent.
     * Whoever sets it puts the previous value back when its work ends.
     */
    public ?TraceContext $trace = null;

    /**
     * The actor the running runnable asked last (set by ask()): if the runnable waits now and that
     * actor is the last one queued, it runs next. Cleared when the runnable waits or ends.
     */
    public ?Runnable $asked = null;

    public function __construct(private readonly int $budget = 256)
    {
        if ($budget < 1) {
            throw new \InvalidArgumentException("The scheduler budget must be at least 1, got {$budget}.");
        }
        $this->waiters = new \WeakMap();
    }

    public function schedule(Runnable $runnable): void
    {
        $this->queue[] = $runnable;
    }

    /**
     * Schedules a waiting task to resume: right after the runnable running now when there is
     * one (it answered the task), else at the back of the queue.
     */
    public function resumeNext(Runnable $waiter): void
    {
        if ($this->running && $this->next === null) {
            $this->next = $waiter;

            return;
        }
        $this->queue[] = $waiter;
    }

    public function hasWork(): bool
    {
        return $this->head < \count($this->queue) || $this->next !== null;
    }

    /**
     * How many fibers were ever created: worker fibers (one while nothing waits) and the helper
     * fibers of runAsked().
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
            // While this fiber drains the queue, the runnable it runs is the current one.
            $running = $this->current;

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
        if ($this->next !== null) {
            // Left over by the last run(): it waits behind what was queued before this one.
            $this->queue[] = $this->next;
            $this->next = null;
        }
        $this->running = true;
        do {
            $fiber = $this->dispatcher;
            if ($fiber === null) {
                // The most recently used fiber, whose stacks are likely still in the cache; but
                // every ROTATE_IDLE-th time the one idle longest (see ROTATE_IDLE).
                $fiber = (++$this->handovers & (self::ROTATE_IDLE - 1)) === 0 ? array_shift($this->idle) : array_pop($this->idle);
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
                $this->trace = null;
                $this->running = false;

                throw $e;
            }
            // The fiber came back either done with its budget or the queue (it is still the
            // dispatcher), or kept by a runnable that waits: then another one goes on.
        } while ($this->handedOver() && $this->remaining > 0 && $this->hasWork());
        $this->running = false;
        if ($this->current !== null) { // a worker fiber clears it before it suspends
            $this->current = null;
        }
        if (\count($this->helperFailures) !== 0) {
            // As a runnable throwing out of a worker fiber would: to the loop's error handler.
            throw array_shift($this->helperFailures);
        }
    }

    /**
     * Called by Future::await() in a task about to wait. When the task has just asked an actor
     * that its ask queued (ask() named it in $asked, and it is the last runnable queued), that
     * actor's turn runs now, inside this run() and its budget, in a helper fiber: if it answers
     * without waiting, the task has its answer and need not wait at all (no fiber handed over,
     * no waiter, no resumption). If the actor waits in its turn, the helper fiber stays with it
     * (as a worker fiber would) and the task waits as usual. The actor would have run next
     * anyway (see the class comment); the helper only spares the round trip.
     *
     * @internal for Future::await()
     */
    public function runAsked(): void
    {
        $asked = $this->asked;
        $last = \count($this->queue) - 1;
        if ($asked === null || !$this->running || $this->remaining <= 0 || $last < $this->head || $this->queue[$last] !== $asked
            || ++$this->helped > self::NEXT_STREAK) {
            return; // the task waits; suspend() may still let the actor run next
        }
        $this->asked = null;
        array_pop($this->queue);
        --$this->remaining;
        $current = $this->current;
        $cancellation = $this->cancellation;
        $trace = $this->trace;
        // The actor's turn runs as itself, under no cancellation and outside the task's trace.
        $this->current = $asked;
        if ($cancellation !== null) {
            $this->cancellation = null;
        }
        if ($trace !== null) {
            $this->trace = null;
        }
        // Taken from the pool as worker fibers are (see ROTATE_IDLE).
        $helper = (++$this->handovers & (self::ROTATE_IDLE - 1)) === 0 ? array_shift($this->helpers) : array_pop($this->helpers);
        if ($helper === null) {
            $helper = new \Fiber($this->help(...));
            ++$this->fibersCreated;
        }
        $this->helping = $asked;
        if ($helper->isSuspended()) {
            $helper->resume();
        } else {
            $helper->start();
        }
        $this->resumed($current, $cancellation, $trace);
    }

    /**
     * The body of a helper fiber: runs the runnable it is given, then waits to be given another.
     * A runnable that waits keeps the fiber until it is resumed and done; at most
     * MIN_IDLE_FIBERS helpers are kept.
     */
    private function help(): void
    {
        while (true) {
            $runnable = $this->helping;
            \assert($runnable !== null);
            $this->helping = null;
            try {
                $runnable->run();
            } catch (\Throwable $e) {
                $this->helperFailures[] = $e;
            }
            $runnable = null;
            if (\count($this->helpers) >= self::MIN_IDLE_FIBERS) {
                return;
            }
            $this->helpers[] = \Fiber::getCurrent() ?? throw new \LogicException('A helper runs in a fiber.');
            \Fiber::suspend();
        }
    }

    /**
     * The waiter of $fiber (see Waiter): one per fiber, kept while the fiber lives.
     *
     * @internal for Future::await()
     *
     * @param \Fiber<mixed, mixed, mixed, mixed> $fiber
     */
    public function waiterFor(\Fiber $fiber): Waiter
    {
        return $this->waiters[$fiber] ??= new Waiter($this);
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
        $asked = $this->asked;
        if ($asked !== null) {
            // The task waits on the actor it just asked: that actor runs next if it is the last
            // one queued (the ask queued it); one queued earlier keeps its place.
            $this->asked = null;
            $last = \count($this->queue) - 1;
            if ($this->next === null && $last >= $this->head && $this->queue[$last] === $asked && $this->helped <= self::NEXT_STREAK) {
                array_pop($this->queue);
                $this->next = $asked;
            }
        }
        // What runs while this task waits neither runs as it nor under its cancellation or trace.
        // (Fields written only when they change: a typed field's write is a slow call here.)
        $cancellation = $this->cancellation();
        if ($this->cancellation !== null) {
            $this->cancellation = null;
        }
        $current = $this->current;
        $this->current = null;
        $trace = $this->trace;
        if ($trace !== null) {
            $this->trace = null;
        }
        if ($fiber === $this->dispatcher) {
            $this->dispatcher = null;
            if (++$this->waiting > $this->keep >> 1) {
                $this->needed = true;
                if ($this->waiting > $this->keep) {
                    $this->keep = min(self::MAX_IDLE_FIBERS, $this->waiting);
                }
            }
        }
        // No finally here or in Future::await(): PHP 8.2's tracing JIT compiles no trace through
        // one, so the code after every wait would run in the interpreter. What a finally would
        // add is only for a fiber destroyed while it waits, whose state is garbage by then.
        try {
            $value = \Fiber::suspend();
        } catch (\Throwable $e) {
            $this->resumed($current, $cancellation, $trace);

            throw $e;
        }
        $this->resumed($current, $cancellation, $trace);

        return $value;
    }

    /**
     * Puts back what the task that waited runs as, under and in.
     */
    private function resumed(?Runnable $current, ?Cancellation $cancellation, ?TraceContext $trace): void
    {
        $this->current = $current;
        if ($cancellation !== $this->cancellation) {
            $this->cancellation = $cancellation;
        }
        if ($trace !== $this->trace) {
            $this->trace = $trace;
        }
    }

    /**
     * Lets go of the runnables taken from the queue (requests, their bodies and answers): all of
     * them when the queue was drained, else once they are at least half of it, so that a long
     * queue is not copied every turn and each runnable is copied at most once on average.
     */
    private function compact(): void
    {
        $count = \count($this->queue);
        if ($this->head >= $count) {
            $this->queue = [];
            $this->head = 0;
        } elseif ($this->head * 2 >= $count) {
            $this->queue = \array_slice($this->queue, $this->head);
            $this->head = 0;
        }
    }

    private function work(): void
    {
        $self = \Fiber::getCurrent();
        // A worker fiber lives as long as the scheduler, unless it ends beyond the idle cap.
        while (true) {
            $streak = 0;
            while ($this->remaining > 0) {
                $runnable = $this->next;
                if ($runnable !== null) {
                    $this->next = null;
                    if (++$streak > self::NEXT_STREAK) {
                        // The queue's turn: what the slot held waits behind it.
                        $this->queue[] = $runnable;
                        $runnable = null;
                    }
                }
                if ($runnable === null) {
                    $streak = 0;
                    if ($this->helped !== 0) {
                        $this->helped = 0;
                    }
                    $runnable = $this->queue[$this->head] ?? null;
                    if ($runnable === null) {
                        break;
                    }
                    ++$this->head;
                }
                --$this->remaining;
                $this->current = $runnable;
                $runnable->run();
                if ($this->asked !== null) {
                    $this->asked = null; // it asked and did not wait
                }
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
            if ($this->head !== 0) {
                $this->compact();
            }
            $this->current = $runnable = null; // a suspended worker holds on to nothing it ran
            \Fiber::suspend();
        }
    }
}
