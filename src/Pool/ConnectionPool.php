<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Pool\Exception\PoolClosedException;
use Nexus\Pool\Exception\PoolException;
use Nexus\Pool\Exception\PoolTimeoutException;
use Nexus\Pool\Exception\PoolWaitQueueFullException;
use Nexus\Pool\Internal\PoolWaiter;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * A pool of reusable connections of one kind (PostgreSQL, Redis, HTTP/1.1 to one origin), generic
 * over the connection type; a PoolConnector opens, checks, resets and closes them.
 *
 * What it promises:
 * - At most maxSize connections exist at once, counting those lent out, idle, being reset and
 *   being opened; with a SharedLimit also at most its cap across every pool that shares it.
 * - A connection is lent to one borrower at a time, the most recently used first. It is checked
 *   with isUsable() when it is taken from the idle set and when it comes back; one that is not
 *   usable, or older than maxLifetime, is closed and its slot freed: a broken or closed connection
 *   is never handed out. One that comes back goes through reset() before anyone else gets it; a
 *   failed reset closes it. discard() closes one that failed in use.
 * - A caller that finds no free connection waits, first come first served, at most acquireTimeout
 *   seconds (then PoolTimeoutException, naming the pool and the wait), and at most maxWaiters wait
 *   at once (one more gets PoolWaitQueueFullException at once). A Cancellation ends a wait early
 *   with its CancelledException, leaving nothing behind.
 * - A connect that fails fails the caller that has waited longest with the connector's exception;
 *   the pool does not retry for callers by itself.
 * - Idle connections beyond minIdle are closed after idleTimeout; minIdle idle connections are
 *   kept ready, opened in the background (after a failed background connect, the next try waits
 *   1 s, doubling up to 30 s, and the failure goes to the loop's error handler).
 * - close() fails the waiters with PoolClosedException, closes idle connections at once and lent
 *   ones when they come back.
 *
 * Timers: one per waiting caller, one sweep timer while connections are idle (unreferenced: an
 * idle pool does not keep Loop::run() going). Taking an idle connection and giving it back
 * allocate nothing beyond the caller's own future.
 *
 * @template C of object
 */
final class ConnectionPool
{
    private const RETRY_MIN = 1.0;
    private const RETRY_MAX = 30.0;

    /** @var array<int, C> idle connections by object id, least recently used first */
    private array $idle = [];
    /** @var array<int, float> when each idle connection became idle */
    private array $idleSince = [];
    /** @var array<int, C> connections lent out, by object id */
    private array $borrowed = [];
    /** @var array<int, float> when each open connection was opened (kept only with a maxLifetime) */
    private array $openedAt = [];
    /** connections lent out, idle, being reset or being opened */
    private int $size = 0;
    private int $connecting = 0;
    private int $resetting = 0;
    /** @var array<int, PoolWaiter<C>> waiting callers, oldest first */
    private array $waiters = [];
    private int $nextWaiter = 0;
    private bool $closed = false;
    private ?int $sweepTimer = null;
    private ?int $retryTimer = null;
    private float $retryDelay = self::RETRY_MIN;
    private readonly ?float $sweepAfter;
    /** copies of the options read on every checkout and return */
    private readonly ?float $maxLifetime;
    private readonly int $minIdle;

    /**
     * @param PoolConnector<C> $connector
     * @param string           $name      names the pool in exception messages ("PostgreSQL pool for
     *                                    127.0.0.1:5432/app")
     * @param ?SharedLimit     $limit     a cap on connections shared with other pools (per-origin
     *                                    pools of an HTTP client); see KeyedConnectionPool
     * @param ?\Closure(PoolException): \Throwable $mapError turns the pool's own failures
     *                                                      (timeout, closed, queue full) into the
     *                                                      kinds a wrapper promises (PgPool's
     *                                                      PgPoolTimeoutException, ...); keep the
     *                                                      message and pass the original as previous
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly PoolConnector $connector,
        private readonly PoolOptions $options = new PoolOptions(),
        private readonly string $name = 'connection pool',
        private readonly ?SharedLimit $limit = null,
        private readonly ?\Closure $mapError = null,
    ) {
        $sweep = min($options->idleTimeout ?? \INF, $options->maxLifetime ?? \INF);
        $this->sweepAfter = is_finite($sweep) ? $sweep : null;
        $this->maxLifetime = $options->maxLifetime;
        $this->minIdle = $options->minIdle;
        if ($options->minIdle > 0) {
            $this->fill();
        }
    }

    /**
     * A connection for the caller alone; give it back with release() (or discard() if it failed).
     * Fails with PoolTimeoutException, PoolWaitQueueFullException, PoolClosedException, the
     * connector's exception when opening one failed, or $cancellation's CancelledException.
     *
     * @return Future<C>
     */
    public function acquire(?Cancellation $cancellation = null): Future
    {
        $connection = $this->tryAcquire();
        if ($connection !== null) {
            return Future::fulfilled($this->loop, $connection);
        }
        if ($this->closed) {
            return Future::rejected($this->loop, $this->error(new PoolClosedException("The {$this->name} is closed: it lends no more connections. Create a new pool.")));
        }
        if ($cancellation !== null && $cancellation->isRequested()) {
            try {
                $cancellation->throwIfRequested();
            } catch (CancelledException $e) {
                return Future::rejected($this->loop, $e);
            }
        }
        if (\count($this->waiters) >= $this->options->maxWaiters) {
            return Future::rejected($this->loop, $this->error(new PoolWaitQueueFullException(sprintf(
                'The %s refused a caller: all %d connections are busy and %d callers already wait (maxWaiters). The system is overloaded: shed load, or raise maxSize (or maxWaiters).',
                $this->name,
                $this->options->maxSize,
                \count($this->waiters),
            ))));
        }
        /** @var Deferred<C> $deferred */
        $deferred = new Deferred($this->loop);
        $waiter = new PoolWaiter($deferred, $this->loop->now(), $cancellation);
        $id = $this->nextWaiter++;
        $this->waiters[$id] = $waiter;
        $waiter->timer = $this->loop->delay($this->options->acquireTimeout, function () use ($id): void {
            $this->expire($id);
        });
        if ($cancellation !== null) {
            $waiter->subscription = $cancellation->subscribe(function (CancelledException $e) use ($id): void {
                $waiter = $this->removeWaiter($id);
                $waiter?->deferred->reject($e);
            });
        }
        $this->dispatch();

        return $deferred->future();
    }

    /**
     * An idle connection at once, or null when none is idle (nothing is opened, nobody waits).
     * The fast path of acquire(), without a future.
     *
     * @return C|null
     */
    public function tryAcquire(): ?object
    {
        while ($this->idle !== []) {
            $id = array_key_last($this->idle);
            $connection = $this->idle[$id];
            unset($this->idle[$id], $this->idleSince[$id]);
            if (!$this->connector->isUsable($connection) || ($this->maxLifetime !== null && $this->isExpired($id))) {
                $this->destroy($id, $connection);

                continue;
            }
            $this->borrowed[$id] = $connection;
            if ($this->minIdle > 0) {
                $this->fill();
            }

            return $connection;
        }

        return null;
    }

    /**
     * Gives back a connection from acquire(): it is checked and reset, then handed to the caller
     * that has waited longest or kept idle. One that is not usable any more is closed.
     *
     * @param C $connection
     *
     * @throws \LogicException when $connection is not lent out by this pool (released twice?)
     */
    public function release(object $connection): void
    {
        $id = $this->takeBack($connection);
        if ($this->closed || !$this->connector->isUsable($connection) || ($this->maxLifetime !== null && $this->isExpired($id))) {
            $this->destroy($id, $connection);

            return;
        }
        try {
            $reset = $this->connector->reset($connection);
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
            $this->destroy($id, $connection);

            return;
        }
        if ($reset === null) {
            $this->offer($id, $connection);

            return;
        }
        ++$this->resetting;
        $reset->onSettle(function (?\Throwable $error) use ($id, $connection): void {
            --$this->resetting;
            if ($error !== null || $this->closed || !$this->connector->isUsable($connection)) {
                $this->destroy($id, $connection);
            } else {
                $this->offer($id, $connection);
            }
        });
    }

    /**
     * Gives back a connection from acquire() that must not be reused (it failed in use, or its
     * state is unknown): it is closed and its slot freed for the next caller.
     *
     * @param C $connection
     *
     * @throws \LogicException when $connection is not lent out by this pool
     */
    public function discard(object $connection): void
    {
        $this->destroy($this->takeBack($connection), $connection);
    }

    /**
     * Runs $work($connection) with a connection of its own and gives it back afterwards, also when
     * $work throws. The wait for a connection ends early when $cancellation (or the cancellation
     * of the current task, see TaskCancellation) is requested.
     *
     * @template R
     *
     * @param \Closure(C): R $work
     *
     * @return R
     */
    public function withConnection(\Closure $work, ?Cancellation $cancellation = null): mixed
    {
        $connection = $this->acquireAndAwait(TaskCancellation::of($this->loop, $cancellation));
        try {
            return $work($connection);
        } finally {
            $this->release($connection);
        }
    }

    /**
     * Awaits a connection from acquire(). If the wait ends without one (a timeout or cancellation
     * of the await itself), a connection that arrives later is given back at once, never lost.
     *
     * @return C
     */
    public function acquireAndAwait(?Cancellation $cancellation = null): object
    {
        $future = $this->acquire($cancellation);
        try {
            return $future->await();
        } catch (\Throwable $e) {
            if (!$future->isSettled()) {
                $future->onSettle(function (?\Throwable $error, mixed $connection): void {
                    if ($error === null && \is_object($connection)) {
                        /** @var C $connection */
                        $this->release($connection);
                    }
                });
            }

            throw $e;
        }
    }

    /**
     * Closes idle connections at once and lent ones when they come back; waiting callers fail with
     * PoolClosedException, and so does every later acquire().
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        foreach ([$this->sweepTimer, $this->retryTimer] as $timer) {
            if ($timer !== null) {
                $this->loop->cancel($timer);
            }
        }
        $this->sweepTimer = $this->retryTimer = null;
        $idle = $this->idle;
        $this->idle = $this->idleSince = [];
        foreach ($idle as $id => $connection) {
            $this->destroy($id, $connection);
        }
        $now = $this->loop->now();
        foreach (array_keys($this->waiters) as $id) {
            $waiter = $this->removeWaiter($id);
            if ($waiter === null) {
                continue;
            }
            $waiter->deferred->reject($this->error(new PoolClosedException(sprintf(
                'The %s was closed while this caller waited %.3f s for a connection.',
                $this->name,
                $now - $waiter->since,
            ))));
        }
        $this->limit?->forget($this);
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * Connections lent out, idle, being reset or being opened.
     */
    public function size(): int
    {
        return $this->size;
    }

    /**
     * @phpstan-impure it changes as the loop runs
     */
    public function idleCount(): int
    {
        return \count($this->idle);
    }

    /**
     * @phpstan-impure it changes as the loop runs
     */
    public function borrowedCount(): int
    {
        return \count($this->borrowed);
    }

    public function connectingCount(): int
    {
        return $this->connecting;
    }

    /**
     * @phpstan-impure it changes as the loop runs
     */
    public function waitingCount(): int
    {
        return \count($this->waiters);
    }

    public function name(): string
    {
        return $this->name;
    }

    public function options(): PoolOptions
    {
        return $this->options;
    }

    /**
     * When the longest-idle connection became idle (Loop::now() time), or null when none is idle.
     *
     * @internal for KeyedConnectionPool, which closes the longest-idle connection of all its pools
     *           when its total cap is reached
     */
    public function oldestIdleSince(): ?float
    {
        $id = array_key_first($this->idleSince);

        return $id === null ? null : $this->idleSince[$id];
    }

    /**
     * Closes the longest-idle connection; false when none is idle.
     *
     * @internal see oldestIdleSince()
     */
    public function closeOldestIdle(): bool
    {
        $id = array_key_first($this->idle);
        if ($id === null) {
            return false;
        }
        $connection = $this->idle[$id];
        unset($this->idle[$id], $this->idleSince[$id]);
        $this->destroy($id, $connection);

        return true;
    }

    /**
     * A slot of the SharedLimit became free: open connections for waiting callers.
     *
     * @internal called by SharedLimit
     */
    public function slotFreed(): void
    {
        $this->dispatch();
    }

    /**
     * @param C $connection
     */
    private function takeBack(object $connection): int
    {
        $id = spl_object_id($connection);
        if (($this->borrowed[$id] ?? null) !== $connection) {
            throw new \LogicException(sprintf(
                'A %s was given back to the %s that it had not lent out: was it released twice, or taken from another pool?',
                $connection::class,
                $this->name,
            ));
        }
        unset($this->borrowed[$id]);

        return $id;
    }

    /**
     * Hands a clean connection to the caller that has waited longest, or keeps it idle.
     *
     * @param C $connection
     */
    private function offer(int $id, object $connection): void
    {
        if ($this->waiters !== []) {
            $waiterId = array_key_first($this->waiters);
            $waiter = $this->removeWaiter($waiterId);
            \assert($waiter !== null);
            $this->borrowed[$id] = $connection;
            $waiter->deferred->resolve($connection);

            return;
        }
        if ($this->limit !== null && $this->limit->isWanted()) {
            // Another pool sharing the limit has callers waiting for a slot: this one is not needed here.
            $this->destroy($id, $connection);

            return;
        }
        $this->idle[$id] = $connection;
        if ($this->sweepAfter === null && $this->limit === null) {
            // Nothing reads when it became idle: no sweep, no eviction across pools.
            $this->idleSince[$id] = 0.0;

            return;
        }
        $now = $this->loop->now();
        $this->idleSince[$id] = $now;
        if ($this->sweepTimer === null && $this->sweepAfter !== null && !$this->closed) {
            $this->armSweep($this->dueAt($id, $now) - $now);
        }
    }

    /**
     * Closes a connection the pool holds no reference to any more and frees its slot.
     *
     * @param C $connection
     */
    private function destroy(int $id, object $connection): void
    {
        unset($this->openedAt[$id]);
        --$this->size;
        try {
            $this->connector->close($connection);
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
        }
        $this->limit?->give();
        if (!$this->closed) {
            $this->dispatch();
            if ($this->minIdle > 0) {
                $this->fill();
            }
        }
    }

    /**
     * Opens connections while callers wait for more than are being opened.
     */
    private function dispatch(): void
    {
        while (!$this->closed && \count($this->waiters) > $this->connecting && $this->size < $this->options->maxSize) {
            if ($this->limit !== null && !$this->limit->tryTake($this, true)) {
                return;
            }
            $this->open();
        }
    }

    /**
     * Opens connections in the background until minIdle are idle (or on their way).
     */
    private function fill(): void
    {
        while (
            !$this->closed
            && $this->retryTimer === null
            && \count($this->idle) + $this->connecting + $this->resetting - \count($this->waiters) < $this->options->minIdle
            && $this->size < $this->options->maxSize
        ) {
            if ($this->limit !== null && !$this->limit->tryTake($this, false)) {
                return;
            }
            $this->open();
        }
    }

    private function open(): void
    {
        ++$this->size;
        ++$this->connecting;
        try {
            $future = $this->connector->connect();
        } catch (\Throwable $e) {
            $future = Future::rejected($this->loop, $e);
        }
        $future->onSettle(function (?\Throwable $error, mixed $connection): void {
            --$this->connecting;
            if ($error !== null || !\is_object($connection)) {
                --$this->size;
                $this->limit?->give();
                $this->connectFailed($error ?? new \UnexpectedValueException("The connector of the {$this->name} gave no connection."));

                return;
            }
            /** @var C $connection */
            $id = spl_object_id($connection);
            if ($this->closed) {
                $this->destroy($id, $connection);

                return;
            }
            $this->retryDelay = self::RETRY_MIN;
            if ($this->options->maxLifetime !== null) {
                $this->openedAt[$id] = $this->loop->now();
            }
            $this->offer($id, $connection);
        });
    }

    private function connectFailed(\Throwable $error): void
    {
        if ($this->closed) {
            return;
        }
        $waiterId = array_key_first($this->waiters);
        if ($waiterId !== null) {
            // The server is likely down: the caller that waited longest learns why, and each
            // remaining caller gets a connect attempt of its own, so none waits in vain.
            $this->removeWaiter($waiterId)?->deferred->reject($error);
            $this->dispatch();

            return;
        }
        // A background connect (minIdle) failed: try again later, and say so.
        $this->loop->reportError($error);
        if ($this->retryTimer === null) {
            $this->retryTimer = $this->loop->delay($this->retryDelay, function (): void {
                $this->retryTimer = null;
                $this->fill();
            });
            $this->loop->unreference($this->retryTimer);
            $this->retryDelay = min(self::RETRY_MAX, $this->retryDelay * 2);
        }
    }

    private function expire(int $id): void
    {
        $waiter = $this->waiters[$id] ?? null;
        if ($waiter === null) {
            return;
        }
        $waiter->timer = -1;
        $this->removeWaiter($id);
        $waiter->deferred->reject($this->error(new PoolTimeoutException(sprintf(
            'No connection of the %s became free within %.3f s (%d of at most %d open, %d being opened, %d other callers waiting). Raise maxSize or the acquire timeout, or hold connections for less time.',
            $this->name,
            $this->options->acquireTimeout,
            $this->size,
            $this->options->maxSize,
            $this->connecting,
            \count($this->waiters),
        ))));
    }

    private function error(PoolException $error): \Throwable
    {
        return $this->mapError === null ? $error : ($this->mapError)($error);
    }

    /**
     * @return PoolWaiter<C>|null
     */
    private function removeWaiter(int $id): ?PoolWaiter
    {
        $waiter = $this->waiters[$id] ?? null;
        if ($waiter === null) {
            return null;
        }
        unset($this->waiters[$id]);
        if ($this->waiters === []) {
            $this->limit?->forget($this);
        }
        if ($waiter->timer >= 0) {
            $this->loop->cancel($waiter->timer);
        }
        if ($waiter->subscription !== null) {
            $waiter->cancellation?->unsubscribe($waiter->subscription);
        }

        return $waiter;
    }

    private function isExpired(int $id): bool
    {
        return $this->options->maxLifetime !== null
            && isset($this->openedAt[$id])
            && $this->loop->now() - $this->openedAt[$id] >= $this->options->maxLifetime;
    }

    /**
     * When the idle connection $id is due to be closed (idle timeout or maximum lifetime).
     */
    private function dueAt(int $id, float $idleSince): float
    {
        $due = \INF;
        if ($this->options->idleTimeout !== null) {
            $due = $idleSince + $this->options->idleTimeout;
        }
        if ($this->options->maxLifetime !== null && isset($this->openedAt[$id])) {
            $due = min($due, $this->openedAt[$id] + $this->options->maxLifetime);
        }

        return $due;
    }

    private function armSweep(float $delay): void
    {
        $this->sweepTimer = $this->loop->delay(max(0.001, $delay), function (): void {
            $this->sweepTimer = null;
            $this->sweep();
        });
        $this->loop->unreference($this->sweepTimer);
    }

    /**
     * Closes idle connections past their idle timeout (keeping minIdle) or their lifetime, then
     * sleeps until the next one is due.
     */
    private function sweep(): void
    {
        if ($this->closed) {
            return;
        }
        $now = $this->loop->now();
        $idleTimeout = $this->options->idleTimeout;
        foreach ($this->idle as $id => $connection) {
            $idleTooLong = $idleTimeout !== null && $now - $this->idleSince[$id] >= $idleTimeout && \count($this->idle) > $this->options->minIdle;
            if ($idleTooLong || $this->isExpired($id)) {
                unset($this->idle[$id], $this->idleSince[$id]);
                $this->destroy($id, $connection);
            }
        }
        if ($this->idle !== [] && $this->sweepTimer === null) {
            $next = \INF;
            foreach ($this->idleSince as $id => $since) {
                $next = min($next, $this->dueAt($id, $since));
            }
            // minIdle connections are never due by idleness: look again after one idle timeout.
            $this->armSweep((is_finite($next) && $next > $now ? $next : $now + ($this->sweepAfter ?? 1.0)) - $now);
        }
    }
}
