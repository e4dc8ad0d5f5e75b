<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Postgres\Exception\PgConnectionException;
use Nexus\Postgres\Exception\PgConnectTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use PgSql\Connection;

/**
 * One asynchronous connection attempt: pg_connect_poll() is called whenever the socket is ready
 * in the direction libpq asked for, until it reports success or failure, or the connect timeout
 * runs out.
 *
 * @internal use PgConnection::connectAsync()
 */
final class PgConnector
{
    private ?int $watcher = null;
    private int $timer;

    /**
     * @param resource                $socket
     * @param Deferred<PgConnection> $deferred
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly PgConfig $config,
        private readonly Connection $link,
        private readonly mixed $socket,
        private readonly Deferred $deferred,
    ) {
        // libpq wants the first poll once the socket is writable (the TCP connect has finished).
        $this->watcher = $loop->onWritable($socket, function (): void {
            $this->step();
        });
        $this->timer = $loop->delay($config->connectTimeout, function (): void {
            $this->timeout();
        });
    }

    private function step(): void
    {
        if ($this->watcher !== null) {
            $this->loop->cancel($this->watcher);
            $this->watcher = null;
        }
        $status = pg_connect_poll($this->link);
        if ($status === \PGSQL_POLLING_OK) {
            $this->loop->cancel($this->timer);
            try {
                $this->deferred->resolve(PgConnection::fromLink($this->loop, $this->config, $this->link));
            } catch (PgConnectionException $e) {
                pg_close($this->link);
                $this->deferred->reject($e);
            }
        } elseif ($status === \PGSQL_POLLING_FAILED) {
            $this->loop->cancel($this->timer);
            $message = trim(pg_last_error($this->link));
            pg_close($this->link);
            $this->deferred->reject(new PgConnectionException(sprintf(
                'Could not connect to PostgreSQL at %s:%d (database "%s", user "%s"): %s. Check that the server runs there and accepts this user.',
                $this->config->host,
                $this->config->port,
                $this->config->database,
                $this->config->user,
                $message,
            )));
        } else {
            $step = function (): void {
                $this->step();
            };
            $this->watcher = $status === \PGSQL_POLLING_READING
                ? $this->loop->onReadable($this->socket, $step)
                : $this->loop->onWritable($this->socket, $step);
        }
    }

    private function timeout(): void
    {
        if ($this->watcher !== null) {
            $this->loop->cancel($this->watcher);
            $this->watcher = null;
        }
        pg_close($this->link);
        $this->deferred->tryReject(new PgConnectTimeoutException(sprintf(
            'Connecting to PostgreSQL at %s:%d took longer than the connect timeout of %.3f s; check the host and port, or raise connectTimeout.',
            $this->config->host,
            $this->config->port,
            $this->config->connectTimeout,
        )));
    }
}
