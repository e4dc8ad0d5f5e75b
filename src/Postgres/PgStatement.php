<?php

declare(strict_types=1);

namespace Nexus\Postgres;

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
     * @param array<mixed> $params
     */
    public function execute(array $params = []): PgResult
    {
        return $this->connection->executeAsync($this->name, $params, $this->sql)->await();
    }

    /**
     * @param array<mixed> $params
     *
     * @return Future<PgResult>
     */
    public function executeAsync(array $params = []): Future
    {
        return $this->connection->executeAsync($this->name, $params, $this->sql);
    }

    /**
     * Frees the statement on the server.
     */
    public function close(): void
    {
        $this->connection->query('DEALLOCATE "' . $this->name . '"');
    }
}
