<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Pool\TaskCancellation;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Future;

/**
 * A statement prepared on one connection (PgConnection::prepare()). It is valid as long as that
 * connection stays open.
 */
final class PgStatement
{
    /**
     * @internal made by PgConnection::prepare()
     */
    public function __construct(
        private readonly PgConnection $connection,
        public readonly string $name,
        public readonly string $sql,
    ) {}

    /**
     * Runs the statement and waits; cancelled on the server when $cancellation (or the current
     * task's cancellation) is requested, like PgConnection::query().
     *
     * @param array<mixed> $params
     */
    public function execute(array $params = [], ?Cancellation $cancellation = null): PgResult
    {
        return $this->connection->executeAsync($this->name, $params, $this->sql, TaskCancellation::of($this->connection->loop(), $cancellation))->await();
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function executeAsync(array $params = [], ?Cancellation $cancellation = null): Future
    {
        return $this->connection->executeAsync($this->name, $params, $this->sql, $cancellation);
    }

    /**
     * Frees the statement on the server.
     */
    public function close(): void
    {
        $this->connection->query('DEALLOCATE "' . $this->name . '"');
    }
}
