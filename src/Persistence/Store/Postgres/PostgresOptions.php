<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Postgres;

/**
 * Bounds of the PostgreSQL store: every query gives up after $queryTimeout seconds (unless the
 * PgConfig sets its own), reads share at most $readConnections connections (callers wait up to
 * $queryTimeout for one), and writes use one more connection of their own.
 */
final readonly class PostgresOptions
{
    public function __construct(
        public float $queryTimeout = 10.0,
        public int $readConnections = 4,
    ) {
        if (!($queryTimeout > 0.0)) {
            throw new \InvalidArgumentException("The PostgreSQL store's query timeout must be above zero seconds, got {$queryTimeout}.");
        }
        if ($readConnections < 1) {
            throw new \InvalidArgumentException("The PostgreSQL store needs at least one read connection, got {$readConnections}.");
        }
    }
}
