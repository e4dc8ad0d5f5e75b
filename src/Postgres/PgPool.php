<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Pool\ConnectionPool;
use Nexus\Pool\Exception\PoolException;
use Nexus\Pool\Exception\PoolTimeoutException;
use Nexus\Pool\Exception\PoolWaitQueueFullException;
use Nexus\Pool\PoolDirectory;
use Nexus\Pool\PoolInstruments;
use Nexus\Pool\PoolOptions;
use Nexus\Pool\TaskCancellation;
use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\Exception\PgException;
use Nexus\Postgres\Exception\PgPoolClosedException;
use Nexus\Postgres\Exception\PgPoolTimeoutException;
use Nexus\Postgres\Exception\PgPoolWaitQueueFullException;
use Nexus\Postgres\Internal\PgPoolConnector;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * PostgreSQL connections on a Nexus\Pool\ConnectionPool: up to maxSize, opened on demand and
 * reused (most recently used first). When all are busy, callers wait in order for up to
 * waitTimeout seconds (PgPoolTimeoutException), at most maxWaiters of them
 * (PgPoolWaitQueueFullException). A connection comes back clean: whatever it still runs is
 * awaited, an open transaction is rolled back, and a broken or listening connection is closed and
 * its slot freed. A statement that fails, for any reason, gives its connection back.
 *
 * A query given a Cancellation (or run by query() under the current task's cancellation) is
 * cancelled where it is: waiting for a connection, it leaves the queue; running, it is cancelled on
 * the server and the connection comes back clean.
 *
 * Metrics: the pool registers in PoolDirectory under $name (a label, default 'postgres'); every
 * connection it opens adds the duration of each statement it sends (from sending to its answer,
 * the wait for a connection not included) to PoolInstruments::$durations
 * (PgConnection::measureInto(): two hrtime() calls and one histogram increment), so statements
 * count however the connection was obtained: query(), withConnection(), transaction() (BEGIN
 * and COMMIT included) or acquireAsync(). measure() does the same for a connection opened
 * outside the pool.
 */
final class PgPool
{
    /** @var ConnectionPool<PgConnection> */
    private readonly ConnectionPool $pool;
    private readonly PoolInstruments $instruments;

    /**
     * @param ?PoolOptions $options all the pool settings (idle timeout, max lifetime, min idle,
     *                              maxWaiters, ...); when given, $maxSize and $waitTimeout are
     *                              not used
     */
    public function __construct(
        private readonly Loop $loop,
        PgConfig $config,
        int $maxSize = 10,
        float $waitTimeout = 5.0,
        ?PoolOptions $options = null,
        string $name = 'postgres',
    ) {
        $this->instruments = PoolDirectory::instruments('postgresql', $name);
        $this->pool = new ConnectionPool(
            $loop,
            new PgPoolConnector($loop, $config, $this->instruments->durations),
            $options ?? new PoolOptions(maxSize: $maxSize, acquireTimeout: $waitTimeout),
            "PostgreSQL pool for {$config->host}:{$config->port}/{$config->database}",
            mapError: static fn(PoolException $e): PgException => match (true) {
                $e instanceof PoolTimeoutException => new PgPoolTimeoutException($e->getMessage(), 0, $e),
                $e instanceof PoolWaitQueueFullException => new PgPoolWaitQueueFullException($e->getMessage(), 0, $e),
                default => new PgPoolClosedException($e->getMessage(), 0, $e),
            },
        );
        $this->instruments->attach($this->pool);
    }

    /**
     * @param array<mixed> $params
     */
    public function query(string $sql, array $params = [], ?Cancellation $cancellation = null): PgResult
    {
        return $this->queryAsync($sql, $params, \Fiber::getCurrent() === null ? $cancellation : TaskCancellation::of($this->loop, $cancellation))->await();
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function queryAsync(string $sql, array $params = [], ?Cancellation $cancellation = null): Future
    {
        $connection = $this->pool->tryAcquire();
        if ($connection !== null) {
            $future = $connection->queryAsync($sql, $params, $cancellation);
            $future->onSettle(function () use ($connection): void {
                $this->pool->release($connection);
            });

            return $future;
        }
        /** @var Deferred<PgResult> $deferred */
        $deferred = new Deferred($this->loop);
        // The query is sent later, from the loop: it keeps the trace of the task that asked for it.
        $trace = $this->loop->scheduler()->trace;
        $this->pool->acquire($cancellation)->onSettle(function (?\Throwable $error, mixed $connection) use ($deferred, $sql, $params, $cancellation, $trace): void {
            if (!$connection instanceof PgConnection) {
                $deferred->reject($error ?? new PgConnectionException('The pool gave no connection.'));

                return;
            }
            $scheduler = $this->loop->scheduler();
            $previous = $scheduler->trace;
            $scheduler->trace = $trace;
            try {
                $query = $connection->queryAsync($sql, $params, $cancellation);
            } finally {
                $scheduler->trace = $previous;
            }
            $query->onSettle(function (?\Throwable $error, mixed $result) use ($connection, $deferred): void {
                $this->pool->release($connection);
                if ($result instanceof PgResult) {
                    $deferred->resolve($result);
                } else {
                    $deferred->reject($error ?? new PgConnectionException('The query gave no result.'));
                }
            });
        });

        return $deferred->future();
    }

    /**
     * Runs $work($connection) with a connection of its own, and returns the connection clean.
     *
     * @template R
     *
     * @param callable(PgConnection): R $work
     *
     * @return R
     */
    public function withConnection(callable $work, ?Cancellation $cancellation = null): mixed
    {
        $connection = $this->pool->acquireAndAwait(TaskCancellation::of($this->loop, $cancellation));
        try {
            return $work($connection);
        } finally {
            $this->pool->release($connection);
        }
    }

    /**
     * BEGIN, $work($connection), COMMIT on one connection; ROLLBACK and rethrow on an exception.
     *
     * @template R
     *
     * @param callable(PgConnection): R $work
     *
     * @return R
     */
    public function transaction(callable $work, ?Cancellation $cancellation = null): mixed
    {
        return $this->withConnection(static fn(PgConnection $connection): mixed => $connection->transaction($work), $cancellation);
    }

    /**
     * A connection for the caller alone; hand it back with release() (or discard()).
     *
     * @return Future<PgConnection>
     */
    public function acquireAsync(?Cancellation $cancellation = null): Future
    {
        return $this->pool->acquire($cancellation);
    }

    /**
     * Gives a connection from acquireAsync() back.
     */
    public function release(PgConnection $connection): void
    {
        $this->pool->release($connection);
    }

    /**
     * Gives back a connection from acquireAsync() that must not be reused: it is closed and its
     * slot freed.
     */
    public function discard(PgConnection $connection): void
    {
        $this->pool->discard($connection);
    }

    /**
     * Closes the idle connections at once and the others when they come back; waiting callers
     * fail with PgPoolClosedException.
     */
    public function close(): void
    {
        $this->pool->close();
    }

    /**
     * Open connections, busy or idle, plus those being opened or made clean.
     */
    public function size(): int
    {
        return $this->pool->size();
    }

    public function idleCount(): int
    {
        return $this->pool->idleCount();
    }

    public function waitingCount(): int
    {
        return $this->pool->waitingCount();
    }

    /**
     * Makes $connection, opened outside the pool (a dedicated writer, a listener), count its
     * statements under this pool's name, as the pool's own connections do; returns it.
     */
    public function measure(PgConnection $connection): PgConnection
    {
        $connection->measureInto($this->instruments->durations);

        return $connection;
    }

    /**
     * This pool's name in the metrics (db.client.connection.pool.name).
     */
    public function name(): string
    {
        return $this->instruments->name;
    }

    /**
     * The generic pool underneath, for its statistics and settings.
     *
     * @return ConnectionPool<PgConnection>
     */
    public function connectionPool(): ConnectionPool
    {
        return $this->pool;
    }
}
