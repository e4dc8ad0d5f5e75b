<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Postgres\PgConfig;
use Nexus\Tests\Support\PostgresServer;

/**
 * A database of its own on the shared test PostgreSQL server, emptied of the persistence tables
 * before each test that uses it.
 */
final class PersistenceDatabase
{
    public const NAME = 'nexus_persistence';

    private static bool $created = false;
    private static ?\PgSql\Connection $admin = null;

    public static function config(?float $queryTimeout = null): PgConfig
    {
        self::ensure();

        return PostgresServer::shared()->config(self::NAME, $queryTimeout);
    }

    /**
     * A blocking connection for setup and checks.
     */
    public static function adminLink(): \PgSql\Connection
    {
        self::ensure();
        if (self::$admin === null || pg_connection_status(self::$admin) !== \PGSQL_CONNECTION_OK) {
            $link = pg_connect(PostgresServer::shared()->config(self::NAME)->toConnectionString(), \PGSQL_CONNECT_FORCE_NEW);
            if ($link === false) {
                throw new \RuntimeException('Could not connect to the test database ' . self::NAME . '.');
            }
            self::$admin = $link;
        }

        return self::$admin;
    }

    public static function reset(): void
    {
        pg_query(self::adminLink(), 'DROP TABLE IF EXISTS nexus_journal, nexus_journal_ordering, nexus_event_tags, nexus_snapshots, nexus_durable_state, nexus_projection_offsets, projected CASCADE');
    }

    private static function ensure(): void
    {
        if (self::$created) {
            return;
        }
        $link = PostgresServer::shared()->adminLink();
        $exists = pg_query_params($link, 'SELECT 1 FROM pg_database WHERE datname = $1', [self::NAME]);
        if ($exists !== false && pg_num_rows($exists) === 0) {
            pg_query($link, 'CREATE DATABASE ' . self::NAME);
        }
        pg_close($link);
        self::$created = true;
    }
}
