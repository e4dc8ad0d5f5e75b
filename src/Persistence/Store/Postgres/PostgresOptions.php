<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Postgres;

/**
 * Bounds of the PostgreSQL store: every query gives up after $queryTimeout seconds (unless the
 * PgConfig sets its own); reads share at most $readConnections connections and writes at most
 * $writeConnections (two transactions in flight let the next batch travel while the last one
 * commits); up to 100,000 reads or writes wait for a connection, in order, then they fail at once
 * with StoreOverloadedException.
 */
final readonly class PostgresOptions
{
    public function __construct(
        public float $queryTimeout = 10.0,
        public int $readConnections = 4,
        public int $writeConnections = 2,
    ) {
        if (!($queryTimeout > 0.0)) {
            throw new \InvalidArgumentException("The PostgreSQL store's query timeout must be above zero seconds, got {$queryTimeout}.");
        }
        if ($readConnections < 1 || $writeConnections < 1) {
            throw new \InvalidArgumentException("The PostgreSQL store needs at least one read and one write connection, got {$readConnections} and {$writeConnections}.");
        }
    }
}
