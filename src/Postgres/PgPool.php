<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\Exception\PgPoolClosedException;
use Nexus\Postgres\Exception\PgPoolTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Up to $maxSize connections, opened on demand and reused (most recently used first). When all
 * are busy, callers wait in order for up to $waitTimeout seconds. A connection comes back clean:
 * whatever it still runs is awaited, an open transaction is rolled back, and a broken or
 * listening connection is closed and later replaced.
 */
final class PgPool
{
    /** @var list<PgConnection> */
    private array $idle = [];
    /** open connections plus connections being opened */
    private int $size = 0;
    /** @var array<int, array{Deferred<PgConnection>, int}> */
    private array $waiters = [];
    private int $nextWaiter = 0;
    private bool $closed = false;

    public function __construct(
        private readonly Loop $loop,
        private readonly PgConfig $config,
        private readonly int $maxSize = 10,
        private readonly float $waitTimeout = 5.0,
    ) {
        if ($maxSize < 1) {
            throw new \InvalidArgumentException("A PostgreSQL pool needs at least one connection, got maxSize {$maxSize}.");
        }
        if (!($waitTimeout > 0.0)) {
            throw new \InvalidArgumentException("The pool's wait timeout must be above zero seconds, got {$waitTimeout}.");
        }
    }

    /**
     * @param array<mixed> $params
     */
    public function query(string $sql, array $params = []): PgResult
    {
        return $this->queryAsync($sql, $params)->await();
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function queryAsync(string $sql, array $params = []): Future
    {
        $connection = $this->takeIdle();
        if ($connection !== null) {
            $future = $connection->queryAsync($sql, $params);
            $future->onSettle(function () use ($connection): void {
                $this->release($connection);
            });

            return $future;
        }
        /** @var Deferred<PgResult> $deferred */
        $deferred = new Deferred($this->loop);
        $this->acquireAsync()->onSettle(function (?\Throwable $error, mixed $connection) use ($deferred, $sql, $params): void {
            if (!$connection instanceof PgConnection) {
                $deferred->reject($error ?? new PgConnectionException('The pool gave no connection.'));

                return;
            }
            $connection->queryAsync($sql, $params)->onSettle(function (?\Throwable $error, mixed $result) use ($connection, $deferred): void {
                $this->release($connection);
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
    public function withConnection(callable $work): mixed
    {
        $connection = $this->acquireAsync()->await();
        try {
            return $work($connection);
        } finally {
            $this->release($connection);
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
    public function transaction(callable $work): mixed
    {
        return $this->withConnection(static fn(PgConnection $connection): mixed => $connection->transaction($work));
    }

    /**
     * A connection for the caller alone; hand it back with release().
     *
     * @return Future<PgConnection>
     */
    public function acquireAsync(): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new PgPoolClosedException('The PostgreSQL pool is closed; create a new one.'));
        }
        $connection = $this->takeIdle();
        if ($connection !== null) {
            return Future::fulfilled($this->loop, $connection);
        }
        /** @var Deferred<PgConnection> $deferred */
        $deferred = new Deferred($this->loop);
        if ($this->size < $this->maxSize) {
            $this->open($deferred);
        } else {
            $id = $this->nextWaiter++;
            $timer = $this->loop->delay($this->waitTimeout, function () use ($id, $deferred): void {
                unset($this->waiters[$id]);
                $deferred->reject(new PgPoolTimeoutException(sprintf(
                    'No PostgreSQL connection became free within %.3f s (all %d in use). Raise maxSize or waitTimeout, or hold connections for less time.',
                    $this->waitTimeout,
                    $this->maxSize,
                )));
            });
            $this->waiters[$id] = [$deferred, $timer];
        }

        return $deferred->future();
    }

    /**
     * Gives a connection from acquireAsync() back.
     */
    public function release(PgConnection $connection): void
    {
        if ($connection->isClosed()) {
            --$this->size;
            $this->openForWaiter();

            return;
        }
        if ($this->closed || $connection->hasListeners()) {
            $connection->close();
            --$this->size;
            $this->openForWaiter();

            return;
        }
        if (!$connection->isIdle()) {
            $connection->whenIdle()->onSettle(function () use ($connection): void {
                $this->release($connection);
            });

            return;
        }
        $status = $connection->transactionStatus();
        if ($status !== \PGSQL_TRANSACTION_IDLE) {
            if ($status === \PGSQL_TRANSACTION_INTRANS || $status === \PGSQL_TRANSACTION_INERROR) {
                $connection->queryAsync('ROLLBACK')->onSettle(function (?\Throwable $error) use ($connection): void {
                    if ($error !== null) {
                        $connection->close();
                    }
                    $this->release($connection);
                });
            } else {
                $connection->close();
                $this->release($connection);
            }

            return;
        }
        foreach ($this->waiters as $id => [$deferred, $timer]) {
            unset($this->waiters[$id]);
            $this->loop->cancel($timer);
            $deferred->resolve($connection);

            return;
        }
        $this->idle[] = $connection;
    }

    /**
     * Closes the idle connections at once and the others when they come back; waiting callers
     * fail with PgPoolClosedException.
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        foreach ($this->idle as $connection) {
            $connection->close();
            --$this->size;
        }
        $this->idle = [];
        $waiters = $this->waiters;
        $this->waiters = [];
        foreach ($waiters as [$deferred, $timer]) {
            $this->loop->cancel($timer);
            $deferred->reject(new PgPoolClosedException('The PostgreSQL pool was closed while waiting for a connection.'));
        }
    }

    /**
     * Open connections, busy or idle, plus those being opened.
     */
    public function size(): int
    {
        return $this->size;
    }

    public function idleCount(): int
    {
        return \count($this->idle);
    }

    public function waitingCount(): int
    {
        return \count($this->waiters);
    }

    private function takeIdle(): ?PgConnection
    {
        while (($connection = array_pop($this->idle)) !== null) {
            if (!$connection->isClosed()) {
                return $connection;
            }
            --$this->size;
        }

        return null;
    }

    /**
     * @param Deferred<PgConnection> $deferred
     */
    private function open(Deferred $deferred): void
    {
        ++$this->size;
        PgConnection::connectAsync($this->loop, $this->config)->onSettle(function (?\Throwable $error, mixed $connection) use ($deferred): void {
            if (!$connection instanceof PgConnection) {
                --$this->size;
                $deferred->reject($error ?? new PgConnectionException('Connecting gave no connection.'));
                $this->openForWaiter();

                return;
            }
            if ($this->closed) {
                $connection->close();
                --$this->size;
                $deferred->reject(new PgPoolClosedException('The PostgreSQL pool was closed while connecting.'));

                return;
            }
            $deferred->resolve($connection);
        });
    }

    private function openForWaiter(): void
    {
        if ($this->closed || $this->size >= $this->maxSize) {
            return;
        }
        foreach ($this->waiters as $id => [$deferred, $timer]) {
            unset($this->waiters[$id]);
            $this->loop->cancel($timer);
            $this->open($deferred);

            return;
        }
    }
}
