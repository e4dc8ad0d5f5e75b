<?php

declare(strict_types=1);

namespace Nexus\Postgres\Internal;

use Nexus\Metrics\HistogramSeries;
use Nexus\Pool\PoolConnector;
use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgConnection;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * How PgPool's ConnectionPool handles PostgreSQL connections: a connection that is closed or
 * LISTENs is not usable; one that comes back with statements still running is reused once they
 * have finished, and one inside a transaction once it is rolled back. Every connection it opens
 * times its statements into the pool's $durations.
 *
 * @internal
 *
 * @implements PoolConnector<PgConnection>
 */
final class PgPoolConnector implements PoolConnector
{
    public function __construct(
        private readonly Loop $loop,
        private readonly PgConfig $config,
        private readonly HistogramSeries $durations,
    ) {}

    public function connect(): Future
    {
        $connecting = PgConnection::connectAsync($this->loop, $this->config);
        $connecting->onSettle(function (?\Throwable $error, mixed $connection): void {
            if ($connection instanceof PgConnection) {
                $connection->measureInto($this->durations);
            }
        });

        return $connecting;
    }

    public function isUsable(object $connection): bool
    {
        return !$connection->isClosed() && !$connection->hasListeners();
    }

    public function reset(object $connection): ?Future
    {
        if ($connection->isIdle() && $connection->transactionStatus() === \PGSQL_TRANSACTION_IDLE) {
            return null;
        }
        /** @var Deferred<null> $clean */
        $clean = new Deferred($this->loop);
        $this->clean($connection, $clean);

        return $clean->future();
    }

    public function close(object $connection): void
    {
        $connection->close();
    }

    /**
     * @param Deferred<null> $clean
     */
    private function clean(PgConnection $connection, Deferred $clean): void
    {
        if ($connection->isClosed()) {
            $clean->reject(new PgConnectionException('The connection closed while it was being made clean for reuse.'));

            return;
        }
        if (!$connection->isIdle()) {
            // Statements a borrower left running (a queryAsync() nobody awaited) finish first.
            $connection->whenIdle()->onSettle(function () use ($connection, $clean): void {
                $this->clean($connection, $clean);
            });

            return;
        }
        $status = $connection->transactionStatus();
        if ($status === \PGSQL_TRANSACTION_IDLE) {
            $clean->resolve(null);
        } elseif ($status === \PGSQL_TRANSACTION_INTRANS || $status === \PGSQL_TRANSACTION_INERROR) {
            $connection->queryAsync('ROLLBACK')->onSettle(function (?\Throwable $error) use ($connection, $clean): void {
                if ($error !== null) {
                    $clean->reject($error);
                } else {
                    $this->clean($connection, $clean);
                }
            });
        } else {
            $clean->reject(new PgConnectionException('The connection came back in an unknown transaction state; it was closed.'));
        }
    }
}
