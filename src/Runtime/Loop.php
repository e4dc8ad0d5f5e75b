<?php

declare(strict_types=1);

namespace Nexus\Runtime;

use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\PollDriver;
use Nexus\Runtime\Exception\PollFailedException;
use Nexus\Runtime\Internal\ClosureWatcher;

/**
 * The event loop: one per process. It owns the timers (a heap), stream readiness (through a
 * PollDriver: epoll where FFI allows it, stream_select() otherwise; see DriverFactory), POSIX
 * signals (pcntl), deferred callbacks and the actor scheduler's run queue.
 *
 * One turn of the loop (tick): a wait for stream readiness that lasts until the next timer is due
 * (zero when work is pending, indefinitely when only streams or signals remain), then signals, due
 * timers, deferred callbacks, and runnable actors (batched, inside a worker fiber). Waiting first
 * means a turn ends right after it did work.
 * It never spins and never sleeps a fixed slice.
 *
 * Every registration returns an int id that cancel() accepts. A registration keeps run() going
 * unless unreference()d, like a referenced handle in libuv.
 */
final class Loop
{
    private readonly Clock $clock;
    /** The clock is virtual (see Clock::isVirtual()): asked once, it cannot change. */
    private readonly bool $virtual;
    private readonly Scheduler $scheduler;
    private readonly TimerQueue $timers;
    private float $now;
    private int $nextId = 1;
    private int $referenced = 0;
    private bool $stopped = false;

    /** @var array<int, \Closure(int): void> */
    private array $timerCallbacks = [];
    /** @var array<int, float> interval of repeating timers */
    private array $timerIntervals = [];
    private readonly PollDriver $driver;
    /** @var array<int, StreamWatcher> */
    private array $readWatchers = [];
    /** @var array<int, StreamWatcher> */
    private array $writeWatchers = [];
    /** Read and write watchers registered (the driver holds their streams). */
    private int $streamWatchers = 0;
    /** @var array<int, array{int, \Closure(int, int): void}> */
    private array $signalWatchers = [];
    /** @var array<int, int> how many watchers each installed signal has */
    private array $signalCounts = [];
    /** @var list<int> */
    private array $pendingSignals = [];
    /** @var array{resource, resource}|null */
    private ?array $wakePipe = null;
    private float $spin = 0.0;
    /** Polls in a row that failed with no stream to blame (see pollFailed()). */
    private int $unexplainedPollFailures = 0;
    private float $pollFailureReportedAt = -\INF;
    /** Read callbacks after which what they scheduled runs, before the next ones (see select()). */
    private const IO_CHUNK = 64;
    /** PHP's own collection threshold: below it an idle loop does not collect. */
    private const IDLE_GC_ROOTS = 10_000;
    /** How far the thresholds rise when collections keep freeing little: 8 times their start. */
    private const GC_BACKOFF_LIMIT = 8;
    /** With collectCyclesInBatches(): the configured root limit (0: off). */
    private int $maxGcRoots = 0;
    /** Collect when about to wait with this many possible roots (adaptive, see collectCyclesIfDue()). */
    private int $idleGcRoots = self::IDLE_GC_ROOTS;
    /** Collect at once with this many possible roots (adaptive). */
    private int $busyGcRoots = 0;
    /** When the loop last looked at the possible roots (see tick()). */
    private float $gcCheckedAt = -\INF;
    /** Seconds between two looks at the possible roots: gc_status() builds an array each time. */
    private const GC_CHECK_INTERVAL = 0.001;
    private float $spinWindow = \INF;
    private float $activeAt = -\INF;
    /** @var array<int, true> */
    private array $unreferenced = [];
    /** @var list<\Closure(): void> */
    private array $deferred = [];
    /** @var (\Closure(\Throwable): void)|null */
    private ?\Closure $errorHandler = null;

    public function __construct(?Clock $clock = null, int $schedulerBudget = 256, ?PollDriver $driver = null)
    {
        $this->driver = $driver ?? DriverFactory::create();
        $this->clock = $clock ?? new SystemClock();
        $this->virtual = $this->clock->isVirtual();
        $this->now = $this->clock->now();
        $this->timers = new TimerQueue();
        $this->scheduler = new Scheduler($schedulerBudget);
    }

    public function clock(): Clock
    {
        return $this->clock;
    }

    public function scheduler(): Scheduler
    {
        return $this->scheduler;
    }

    /**
     * What waits for stream readiness: its name() and capacity() say how many descriptors the
     * loop can watch.
     */
    public function driver(): PollDriver
    {
        return $this->driver;
    }

    /**
     * The time at the start of the current loop turn, in seconds (monotonic).
     */
    public function now(): float
    {
        return $this->now;
    }

    /**
     * Runs $callback on the next loop turn (a turn with deferred work does not wait for I/O).
     *
     * @param \Closure(): void $callback
     */
    public function defer(\Closure $callback): void
    {
        $this->deferred[] = $callback;
    }

    /**
     * Runs $callback(int $id) once, $seconds from now.
     *
     * @param \Closure(int): void $callback
     */
    public function delay(float $seconds, \Closure $callback): int
    {
        $id = $this->nextId++;
        $this->timerCallbacks[$id] = $callback;
        $this->timers->insert($id, $this->now + max(0.0, $seconds));
        ++$this->referenced;

        return $id;
    }

    /**
     * Runs $callback(int $id) every $interval seconds at a fixed rate, until cancelled.
     *
     * @param \Closure(int): void $callback
     */
    public function repeat(float $interval, \Closure $callback, ?float $initialDelay = null): int
    {
        if ($interval <= 0.0) {
            throw new \InvalidArgumentException("A repeating timer needs an interval above zero, got {$interval} s.");
        }
        $id = $this->delay($initialDelay ?? $interval, $callback);
        $this->timerIntervals[$id] = $interval;

        return $id;
    }

    /**
     * Calls $callback($stream, $id) whenever $stream is readable.
     *
     * @param resource $stream
     * @param \Closure(resource, int): void $callback
     */
    public function onReadable(mixed $stream, \Closure $callback): int
    {
        return $this->watchReadable($stream, new ClosureWatcher($stream, $callback));
    }

    /**
     * Calls $watcher->streamReady($id) whenever $stream is readable: onReadable() for an
     * object that owns the stream anyway (no closure per watcher).
     *
     * @param resource $stream
     */
    public function watchReadable(mixed $stream, StreamWatcher $watcher): int
    {
        $id = $this->nextId++;
        $this->readWatchers[$id] = $watcher;
        ++$this->referenced;
        ++$this->streamWatchers;
        $this->driver->watchRead($id, $stream);

        return $id;
    }

    /**
     * Calls $callback($stream, $id) whenever $stream is writable.
     *
     * @param resource $stream
     * @param \Closure(resource, int): void $callback
     */
    public function onWritable(mixed $stream, \Closure $callback): int
    {
        return $this->watchWritable($stream, new ClosureWatcher($stream, $callback));
    }

    /**
     * Calls $watcher->streamReady($id) whenever $stream is writable (see watchReadable()).
     *
     * @param resource $stream
     */
    public function watchWritable(mixed $stream, StreamWatcher $watcher): int
    {
        $id = $this->nextId++;
        $this->writeWatchers[$id] = $watcher;
        ++$this->referenced;
        ++$this->streamWatchers;
        $this->driver->watchWrite($id, $stream);

        return $id;
    }

    /**
     * Calls $callback($signo, $id) on the loop (not inside the signal handler) when the process
     * receives $signo.
     *
     * @param \Closure(int, int): void $callback
     */
    public function onSignal(int $signo, \Closure $callback): int
    {
        if (!\function_exists('pcntl_signal')) {
            throw new \RuntimeException('Signal handling needs the pcntl extension (Debian: php8.2-cli ships it; check php -m).');
        }
        $id = $this->nextId++;
        $this->signalWatchers[$id] = [$signo, $callback];
        ++$this->referenced;
        if (!isset($this->signalCounts[$signo])) {
            $this->signalCounts[$signo] = 0;
            $this->installSignal($signo);
        }
        ++$this->signalCounts[$signo];

        return $id;
    }

    /**
     * Removes a timer, stream watcher or signal watcher. Unknown or already removed ids are ignored.
     */
    public function cancel(int $id): void
    {
        if (isset($this->timerCallbacks[$id])) {
            unset($this->timerCallbacks[$id], $this->timerIntervals[$id]);
            $this->release($id);
            $this->compactTimers();
        } elseif (isset($this->readWatchers[$id])) {
            unset($this->readWatchers[$id]);
            --$this->streamWatchers;
            $this->driver->unwatch($id);
            $this->release($id);
        } elseif (isset($this->writeWatchers[$id])) {
            unset($this->writeWatchers[$id]);
            --$this->streamWatchers;
            $this->driver->unwatch($id);
            $this->release($id);
        } elseif (isset($this->signalWatchers[$id])) {
            $signo = $this->signalWatchers[$id][0];
            unset($this->signalWatchers[$id]);
            $this->release($id);
            if (--$this->signalCounts[$signo] === 0) {
                unset($this->signalCounts[$signo]);
                pcntl_signal($signo, \SIG_DFL);
            }
        }
    }

    /**
     * The registration no longer keeps run() going (a housekeeping timer, a listening socket that
     * should not hold a finished program open).
     */
    public function unreference(int $id): void
    {
        if (!isset($this->unreferenced[$id]) && $this->isKnown($id)) {
            $this->unreferenced[$id] = true;
            --$this->referenced;
        }
    }

    public function reference(int $id): void
    {
        if (isset($this->unreferenced[$id])) {
            unset($this->unreferenced[$id]);
            ++$this->referenced;
        }
    }

    /**
     * Runs $callback in a new fiber on the next loop turn; the future carries its return value or
     * exception. Inside it, futures can be awaited without blocking the loop.
     *
     * @template R
     *
     * @param \Closure(): R $callback
     *
     * @return Future<R>
     */
    public function async(\Closure $callback): Future
    {
        /** @var Deferred<R> $deferred */
        $deferred = new Deferred($this);
        $this->defer(static function () use ($callback, $deferred): void {
            $fiber = new \Fiber(static function () use ($callback, $deferred): void {
                try {
                    $deferred->resolve($callback());
                } catch (\Throwable $e) {
                    $deferred->reject($e);
                }
            });
            $fiber->start();
        });

        return $deferred->future();
    }

    /**
     * Before blocking on I/O, poll without blocking for up to $seconds (0 turns it off, the
     * default). Waking a sleeping process costs tens of microseconds on a VM; a worker that
     * expects a reply from another process soon (the worker pool) answers several times faster
     * this way, at the price of that much CPU each time it goes idle. With $window, the loop spins
     * only within $window seconds of the last markActive(), so that a quiet loop sleeps at once.
     */
    public function spinBeforeBlocking(float $seconds, float $window = \INF): void
    {
        if ($seconds < 0.0 || $seconds > 0.01) {
            throw new \InvalidArgumentException("The spin before blocking must be 0 to 0.01 s, got {$seconds}.");
        }
        $this->spin = $seconds;
        $this->spinWindow = $window;
    }

    /**
     * Takes PHP's cycle collection off the hot path: the automatic collector (which runs every
     * 10,000 possible roots, and each message object passed between actors becomes one) is turned
     * off, and the loop collects instead when it is about to wait for I/O or timers with at least
     * 10,000 possible roots buffered, or at once when $maxRoots are. Cyclic garbage is still freed, in
     * idle time or in batches; an actor system passing objects runs ~20% faster.
     *
     * The thresholds adapt, as PHP's own does: a collection that frees little (under 100 values,
     * or under 1/64 of the roots it walked: the roots were live objects, such as the actors of a
     * server waiting on its database) doubles the idle one and quadruples the busy one, up to 8
     * times their start (80,000 and 800,000 roots by default); one that frees more halves them back. So a loop that waits often with many live objects (once per
     * database transaction) stops walking them at every wait.
     */
    public function collectCyclesInBatches(int $maxRoots = 100_000): void
    {
        if ($maxRoots < 1) {
            throw new \InvalidArgumentException("collectCyclesInBatches() needs a positive root limit, got {$maxRoots}.");
        }
        gc_disable();
        $this->maxGcRoots = $maxRoots;
        $this->busyGcRoots = $maxRoots;
        $this->idleGcRoots = min(self::IDLE_GC_ROOTS, $maxRoots);
    }

    /**
     * With collectCyclesInBatches(): collects when about to wait (idle time costs nothing) with
     * as many possible roots as the idle threshold, or at once with as many as the busy one, and
     * adapts both to what the collection freed. Collecting a few roots at every pause would walk
     * the graphs of long-lived objects (a server's connections, its actors) over and over.
     */
    private function collectCyclesIfDue(bool $aboutToWait): void
    {
        $roots = gc_status()['roots'];
        if ($roots < $this->busyGcRoots && ($roots < $this->idleGcRoots || !$aboutToWait)) {
            return;
        }
        $freed = gc_collect_cycles();
        if ($freed < 100 || $freed < $roots >> 6) {
            // Mostly live objects: collecting this often walks them again for nothing.
            $this->idleGcRoots = min($this->idleGcRoots * 2, min(self::IDLE_GC_ROOTS, $this->maxGcRoots) * self::GC_BACKOFF_LIMIT);
            // The busy one rises faster: a burst that never lets the loop wait (thousands of
            // actors starting or recovering at once) would otherwise walk its live objects 3 times.
            $this->busyGcRoots = min($this->busyGcRoots * 4, $this->maxGcRoots * self::GC_BACKOFF_LIMIT);
        } else {
            $this->idleGcRoots = max(intdiv($this->idleGcRoots, 2), min(self::IDLE_GC_ROOTS, $this->maxGcRoots));
            $this->busyGcRoots = max(intdiv($this->busyGcRoots, 2), $this->maxGcRoots);
        }
    }

    /**
     * Tells the loop that traffic which is worth spinning for just happened (see spinBeforeBlocking()).
     */
    public function markActive(): void
    {
        if ($this->activeAt !== $this->now) {
            $this->activeAt = $this->now; // once a turn: a typed property write costs ~100 instructions
        }
    }

    /**
     * Where exceptions thrown by loop callbacks go. Without a handler, run() rethrows them.
     *
     * @param (\Closure(\Throwable): void)|null $handler
     */
    public function setErrorHandler(?\Closure $handler): void
    {
        $this->errorHandler = $handler;
    }

    /**
     * @internal
     */
    public function reportError(\Throwable $error): void
    {
        if ($this->errorHandler === null) {
            throw $error;
        }
        ($this->errorHandler)($error);
    }

    /**
     * Runs until stop() is called or nothing is left that could do anything.
     */
    public function run(): void
    {
        while (!$this->stopped && $this->tick()) {
        }
        $this->stopped = false;
    }

    /**
     * Makes run() return after the current turn.
     */
    public function stop(): void
    {
        $this->stopped = true;
    }

    /**
     * Whether anything is registered or pending that keeps the loop going.
     */
    public function isAlive(): bool
    {
        // count() and not `!== []`: the tracing JIT compiles count() inline but compares arrays
        // with === through a call (about 90 instructions against 20).
        return $this->referenced > 0 || \count($this->deferred) !== 0 || $this->scheduler->hasWork() || \count($this->pendingSignals) !== 0;
    }

    /**
     * One loop turn. With $block the I/O wait lasts until the next timer when nothing is runnable;
     * without it the turn never waits. Returns false, doing nothing, when the loop has nothing left.
     */
    public function tick(bool $block = true): bool
    {
        $this->now = $this->clock->now();
        if (!$this->isAlive()) {
            return false;
        }
        // Wait first and work after, so that a turn returns right after doing work: whoever runs
        // the loop until something happens sees it at once, not one timer period later.
        $timeout = 0.0;
        if ($block && \count($this->deferred) === 0 && \count($this->pendingSignals) === 0 && !$this->scheduler->hasWork()) {
            $due = $this->nextTimerDue();
            $timeout = $due === null ? null : max(0.0, $due - $this->now);
        }
        if ($timeout !== 0.0) {
            // About to wait: a pool of fibers left by a burst of waiting handlers can go.
            $this->scheduler->trimIdle($this->now);
        }
        // The possible roots are looked at once a millisecond at most: a busy loop turns tens of
        // thousands of times a second, and an idle one waits longer than that between turns.
        if ($this->maxGcRoots > 0 && ($this->virtual || $this->now - $this->gcCheckedAt >= self::GC_CHECK_INTERVAL)) {
            $this->gcCheckedAt = $this->now;
            $this->collectCyclesIfDue($timeout !== 0.0);
        }
        $virtual = $this->virtual;
        if ($this->streamWatchers > 0) {
            // With a virtual clock the wait is skipped when a timer is pending (time jumps to it
            // instead); with no timer at all only I/O or a signal can make progress: block.
            // (select() reads the clock once the wait is over.)
            $this->select($virtual && $timeout !== null ? 0.0 : $timeout);
        } else {
            if ($timeout > 0.0 && !$virtual) {
                usleep((int) ceil($timeout * 1e6));
            }
            $this->now = $this->clock->now();
        }
        if ($virtual && $timeout > 0.0) {
            // A virtual clock jumps to the next timer instead of sleeping until it.
            $this->clock->advanceTo($this->clock->now() + $timeout);
            $this->now = $this->clock->now();
        }
        if (\count($this->pendingSignals) !== 0) {
            $this->dispatchSignals();
        }
        if (!$this->timers->isEmpty()) {
            $this->runTimers();
        }
        if (\count($this->deferred) !== 0) {
            $this->runDeferred();
        }
        if ($this->scheduler->hasWork()) {
            $this->runScheduler();
            // What the actors deferred (a batch for another worker, say) leaves in this turn
            // rather than after the next poll.
            if (\count($this->deferred) !== 0) {
                $this->runDeferred();
            }
        }

        return true;
    }

    /**
     * Runs every deferred callback, runnable actor and due timer without waiting for I/O or moving
     * time, until none is left. Streams that are ready at once are served.
     */
    public function runUntilIdle(int $maxTurns = 1_000_000): void
    {
        while ($maxTurns-- > 0) {
            if (!$this->tick(false)) {
                return;
            }
            $due = $this->nextTimerDue();
            if (\count($this->deferred) === 0 && !$this->scheduler->hasWork() && \count($this->pendingSignals) === 0
                && ($due === null || $due > $this->clock->now())) {
                return;
            }
        }
        throw new \RuntimeException('The loop did not become idle: something keeps rescheduling itself without end.');
    }

    /**
     * When the next timer is due, or null when there is none.
     */
    public function nextTimerDue(): ?float
    {
        while (!$this->timers->isEmpty() && !isset($this->timerCallbacks[$this->timers->peekId()])) {
            $this->timers->extract();
        }

        return $this->timers->peekDue();
    }

    private function runScheduler(): void
    {
        // A poll costs time in proportion to the streams it covers (all watched ones for
        // stream_select(), the ready ones for epoll), and a turn with runnables left polls again
        // at once. With one budget per turn, 1,000 connections whose requests arrive together paid
        // a poll of every socket per 256 requests. Scaling the work per turn with the poll's cost
        // keeps the poll a fixed share of the work and still bounds how long I/O waits.
        $rounds = 1 + ($this->driver->pollCost() >> 8);
        do {
            try {
                $this->scheduler->run();
            } catch (\Throwable $e) {
                $this->reportError($e);
            }
        } while (--$rounds > 0 && $this->scheduler->hasWork());
    }

    private function runDeferred(): void
    {
        // Only what was queued before this turn: a callback that defers itself again runs on the
        // next turn, so it cannot starve timers and I/O.
        $callbacks = $this->deferred;
        $this->deferred = [];
        if (\count($callbacks) === 1) {
            // The common case (a link's flush): no loop, which the tracing JIT gives up when it
            // runs once. An error thrown on by reportError() leaves nothing else to requeue.
            try {
                $callbacks[0]();
            } catch (\Throwable $e) {
                $this->reportError($e);
            }

            return;
        }
        foreach ($callbacks as $i => $callback) {
            try {
                $callback();
            } catch (\Throwable $e) {
                try {
                    $this->reportError($e);
                } catch (\Throwable $rethrown) {
                    // run() rethrows: the callbacks not run yet stay queued for the next turn.
                    $this->deferred = [...\array_slice($callbacks, $i + 1), ...$this->deferred];

                    throw $rethrown;
                }
            }
        }
    }

    private function runTimers(): void
    {
        $now = $this->now; // read after the wait (select(), or tick() without streams)
        // Timers started by these callbacks wait for the next turn (ids only grow, and a new timer
        // sorts after every older one that is due), so a callback re-arming itself with a zero
        // delay cannot starve I/O.
        $firstNew = $this->nextId;
        while (($due = $this->timers->peekDue()) !== null && $due <= $now && $this->timers->peekId() < $firstNew) {
            $id = $this->timers->extract();
            $callback = $this->timerCallbacks[$id] ?? null;
            if ($callback === null) {
                continue; // cancelled
            }
            if (isset($this->timerIntervals[$id])) {
                $interval = $this->timerIntervals[$id];
                $next = $due + $interval;
                // A loop that fell behind does not fire a burst to catch up.
                $this->timers->insert($id, $next > $now ? $next : $now + $interval);
            } else {
                unset($this->timerCallbacks[$id]);
                $this->release($id);
            }
            try {
                $callback($id);
            } catch (\Throwable $e) {
                $this->reportError($e);
            }
        }
    }

    private function select(?float $timeout): void
    {
        $read = $write = [];
        $ready = 0;
        if ($this->spin > 0.0 && ($timeout === null || $timeout > 0.0) && $this->now - $this->activeAt <= $this->spinWindow) {
            // Polling a little before sleeping: a reply from another process that comes within the
            // spin is seen at once instead of after the scheduler wakes this one (tens of µs).
            $until = hrtime(true) + (int) (min($this->spin, $timeout ?? $this->spin) * 1e9);
            do {
                $ready = $this->driver->poll(0.0, $read, $write);
                if ($ready !== 0) {
                    break;
                }
            } while (hrtime(true) < $until && $this->pendingSignals === []);
        }
        if ($ready === 0) {
            $ready = $this->driver->poll($timeout, $read, $write);
        }
        // The wait may have been long: timers the callbacks start count from now, not the turn's start.
        $this->now = $this->clock->now();
        if ($ready === false) {
            $this->pollFailed($this->driver->lastError());

            return;
        }
        if ($this->unexplainedPollFailures !== 0) {
            $this->unexplainedPollFailures = 0; // read first: a typed property write costs ~100 instructions
        }
        if ($ready === 0) {
            return;
        }
        if ($ready === 1 && $write === []) {
            // One stream ready, the common case of a worker waiting for a reply: served without a
            // loop, since PHP 8.2's tracing JIT gives up a loop that runs once ("exit from loop")
            // and leaves it to the interpreter.
            $id = $read[0];
            $watcher = $this->readWatchers[$id] ?? null;
            if ($watcher !== null) {
                try {
                    $watcher->streamReady($id);
                } catch (\Throwable $e) {
                    $this->reportError($e);
                }
            }

            return;
        }
        $chunk = self::IO_CHUNK;
        foreach ($read as $id) {
            $watcher = $this->readWatchers[$id] ?? null;
            if ($watcher !== null) {
                try {
                    $watcher->streamReady($id);
                } catch (\Throwable $e) {
                    $this->reportError($e);
                }
            }
            if (--$chunk === 0) {
                $chunk = self::IO_CHUNK;
                if ($this->scheduler->hasWork()) {
                    try {
                        $this->scheduler->run();
                    } catch (\Throwable $e) {
                        $this->reportError($e);
                    }
                }
            }
        }
        foreach ($write as $id) {
            $watcher = $this->writeWatchers[$id] ?? null;
            if ($watcher !== null) {
                try {
                    $watcher->streamReady($id);
                } catch (\Throwable $e) {
                    $this->reportError($e);
                }
            }
        }
    }

    /**
     * The poll failed at once: a watched stream was closed, or (stream_select()) its descriptor is
     * at or above FD_SETSIZE (1024), which stream_select() refuses for the whole set. Instead of
     * failing every turn (a loop spinning at full CPU and serving nothing), the watchers of the
     * streams the driver cannot watch are removed and the failure is reported; the other streams
     * are served on. Their owners see no more readiness and end through their own timeouts. A
     * failure no stream can be blamed for is reported the first time and then once a second (with
     * the count), and the loop waits 1 ms after it, doubling up to 100 ms while it lasts, so that
     * it never spins.
     */
    private function pollFailed(string $message): void
    {
        $culprits = $this->driver->culprits();
        foreach (array_keys($culprits) as $id) {
            $this->cancel($id);
        }
        $reason = trim(strtok($message, "\n") ?: 'no reason given');
        $driver = $this->driver->name();
        if ($culprits !== []) {
            $this->reportError(new PollFailedException(\sprintf(
                '%s failed (%s); stopped watching %d stream(s) it cannot poll (%s). %s',
                $driver,
                $reason,
                \count($culprits),
                implode(', ', \array_slice(array_unique($culprits), 0, 5)),
                $this->driver->limitsDescriptorNumbers()
                    ? 'Keep descriptors below 1024: fewer connections per worker (ListenOptions::$maxConnections), more workers, or the epoll driver (ext-ffi).'
                    : 'Cancel a stream\'s watchers before closing it.',
            )));

            return;
        }
        // Nothing to remove: do not fail again at full speed.
        ++$this->unexplainedPollFailures;
        usleep(min(100_000, 1000 << min(7, $this->unexplainedPollFailures - 1)));
        $now = $this->clock->now();
        if ($this->unexplainedPollFailures === 1 || $now - $this->pollFailureReportedAt >= 1.0) {
            $this->pollFailureReportedAt = $now;
            $this->reportError(new PollFailedException(\sprintf(
                '%s failed (%s); no watched stream could be blamed (%d failure(s) in a row). The loop retries with a growing pause.',
                $driver,
                $reason,
                $this->unexplainedPollFailures,
            )));
        }
    }

    private function installSignal(int $signo): void
    {
        pcntl_async_signals(true);
        if ($this->wakePipe === null) {
            $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
            if ($pair === false) {
                throw new \RuntimeException('Could not create the socket pair that wakes the loop on signals.');
            }
            stream_set_blocking($pair[0], false);
            stream_set_blocking($pair[1], false);
            $this->wakePipe = [$pair[0], $pair[1]];
            $id = $this->onReadable($pair[0], static function ($stream): void {
                fread($stream, 4096);
            });
            $this->unreference($id);
        }
        $wake = $this->wakePipe[1] ?? throw new \LogicException('The wake-up socket pair is missing.');
        pcntl_signal($signo, function (int $signo) use ($wake): void {
            $this->pendingSignals[] = $signo;
            @fwrite($wake, "\0");
        });
    }

    private function dispatchSignals(): void
    {
        $signals = $this->pendingSignals;
        $this->pendingSignals = [];
        foreach ($signals as $signo) {
            foreach ($this->signalWatchers as $id => [$watched, $callback]) {
                if ($watched === $signo) {
                    try {
                        $callback($signo, $id);
                    } catch (\Throwable $e) {
                        $this->reportError($e);
                    }
                }
            }
        }
    }

    private function isKnown(int $id): bool
    {
        return isset($this->timerCallbacks[$id]) || isset($this->readWatchers[$id])
            || isset($this->writeWatchers[$id]) || isset($this->signalWatchers[$id]);
    }

    private function release(int $id): void
    {
        if (isset($this->unreferenced[$id])) {
            unset($this->unreferenced[$id]);
        } else {
            --$this->referenced;
        }
    }

    private function compactTimers(): void
    {
        $queued = $this->timers->count();
        if ($queued > 1024 && $queued > 2 * \count($this->timerCallbacks)) {
            $this->timers->retain(fn(int $id): bool => isset($this->timerCallbacks[$id]));
        }
    }
}
