<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Postgres;

use Nexus\Postgres\Exception\InvalidPgConfigException;
use Nexus\Postgres\PgConfig;

/**
 * Reads `postgres://USER:PASS@HOST:PORT/DB` (or postgresql://) into a PgConfig. User, password
 * and database may be %-encoded; the port defaults to 5432, the user to postgres, the database
 * to the user's name.
 */
final class PostgresUrl
{
    public static function parse(string $url): PgConfig
    {
        $parts = parse_url($url);
        if ($parts === false || !isset($parts['scheme'], $parts['host']) || !\in_array(strtolower($parts['scheme']), ['postgres', 'postgresql'], true)) {
            throw new InvalidPgConfigException("'{$url}' is not a PostgreSQL URL; write it as postgres://USER:PASS@HOST:PORT/DB.");
        }
        if (isset($parts['query']) || isset($parts['fragment'])) {
            throw new InvalidPgConfigException("The PostgreSQL URL takes no query or fragment: write it as postgres://USER:PASS@HOST:PORT/DB, got '{$url}'.");
        }
        $user = isset($parts['user']) ? rawurldecode($parts['user']) : 'postgres';
        $database = isset($parts['path']) ? rawurldecode(ltrim($parts['path'], '/')) : '';

        return new PgConfig(
            host: trim($parts['host'], '[]'),
            port: $parts['port'] ?? 5432,
            database: $database === '' ? $user : $database,
            user: $user,
            password: isset($parts['pass']) ? rawurldecode($parts['pass']) : '',
            applicationName: 'nexus-persistence',
        );
    }

    /**
     * The URL without its password, for logs.
     */
    public static function redact(PgConfig $config): string
    {
        return sprintf('postgres://%s@%s:%d/%s', rawurlencode($config->user), $config->host, $config->port, rawurlencode($config->database));
    }
}
