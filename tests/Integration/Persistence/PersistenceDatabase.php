<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Postgres\PgConfig;
use Nexus\Tests\Support\PostgresServer;

/**
 * A PostgreSQL server of the persistence tests' own (not the one the client tests share: the
 * journal's bulk writes and their vacuuming would make that one slower for their timing-sensitive
 * tests), with one database, emptied of the persistence tables before each test that uses it.
 * Started on first use, stopped when the PHPUnit process exits.
 */
final class PersistenceDatabase
{
    public const NAME = 'nexus_persistence';

    private static ?PostgresServer $server = null;
    private static ?\PgSql\Connection $admin = null;

    public static function config(?float $queryTimeout = null): PgConfig
    {
        return self::server()->config(self::NAME, $queryTimeout);
    }

    /**
     * A blocking connection for setup and checks.
     */
    public static function adminLink(): \PgSql\Connection
    {
        if (self::$admin === null || pg_connection_status(self::$admin) !== \PGSQL_CONNECTION_OK) {
            $link = pg_connect(self::server()->config(self::NAME)->toConnectionString(), \PGSQL_CONNECT_FORCE_NEW);
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

    /**
     * Makes the test database refuse new connections and ends those it has (the server stays up
     * for the other databases), or lets it accept them again: PostgreSQL gone away, as a client
     * sees it.
     */
    public static function setReachable(bool $reachable): void
    {
        $link = self::server()->adminLink();
        try {
            pg_query($link, 'ALTER DATABASE ' . self::NAME . ' ALLOW_CONNECTIONS ' . ($reachable ? 'true' : 'false'));
            if (!$reachable) {
                pg_query($link, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" . self::NAME . "'");
                self::$admin = null;
            }
        } finally {
            pg_close($link);
        }
    }

    private static function server(): PostgresServer
    {
        if (self::$server === null) {
            $server = PostgresServer::start();
            register_shutdown_function(static function () use ($server): void {
                $server->stop();
            });
            $link = $server->adminLink();
            pg_query($link, 'CREATE DATABASE ' . self::NAME);
            pg_close($link);
            self::$server = $server;
        }

        return self::$server;
    }
}
