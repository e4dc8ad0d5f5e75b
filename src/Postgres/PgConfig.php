<?php

declare(strict_types=1);

namespace Nexus\Postgres;

use Nexus\Postgres\Exception\InvalidPgConfigException;

/**
 * Where and how to connect. Build it directly or from a libpq-style keyword string:
 *
 *     PgConfig::fromDsn('host=127.0.0.1 port=5432 dbname=app user=app password=secret')
 *
 * connectTimeout (default 10 s) bounds opening a connection; queryTimeout (default 30 s) bounds
 * each statement, which is then cancelled on the server (null lets statements run as long as they
 * take; give that only to connections that need it).
 */
final class PgConfig
{
    private const KEYWORDS = [
        'host' => true, 'hostaddr' => true, 'port' => true, 'dbname' => true, 'user' => true,
        'password' => true, 'connect_timeout' => true, 'query_timeout' => true, 'application_name' => true,
    ];

    public const DEFAULT_CONNECT_TIMEOUT = 10.0;
    public const DEFAULT_QUERY_TIMEOUT = 30.0;

    public function __construct(
        public readonly string $host = '127.0.0.1',
        public readonly int $port = 5432,
        public readonly string $database = 'postgres',
        public readonly string $user = 'postgres',
        public readonly string $password = '',
        public readonly float $connectTimeout = self::DEFAULT_CONNECT_TIMEOUT,
        public readonly ?float $queryTimeout = self::DEFAULT_QUERY_TIMEOUT,
        public readonly string $applicationName = 'nexus',
    ) {
        if ($host === '') {
            throw new InvalidPgConfigException('The PostgreSQL host is empty: give a host name, an IP address or a Unix socket directory.');
        }
        if ($port < 1 || $port > 65535) {
            throw new InvalidPgConfigException("The PostgreSQL port must be between 1 and 65535, got {$port}.");
        }
        if ($database === '' || $user === '') {
            throw new InvalidPgConfigException('The PostgreSQL database name and user must not be empty.');
        }
        if (!($connectTimeout > 0.0)) {
            throw new InvalidPgConfigException("The connect timeout must be above zero seconds, got {$connectTimeout}.");
        }
        if ($queryTimeout !== null && !($queryTimeout > 0.0)) {
            throw new InvalidPgConfigException("The query timeout must be above zero seconds or null (no limit), got {$queryTimeout}.");
        }
    }

    /**
     * Parses "key=value key='quoted value'" (libpq keyword syntax). Known keywords: host, hostaddr
     * (taken as the host), port, dbname, user, password, connect_timeout, query_timeout (both in
     * seconds, fractions allowed) and application_name.
     */
    public static function fromDsn(string $dsn): self
    {
        $values = self::parseKeywords($dsn);
        foreach ($values as $key => $_) {
            if (!isset(self::KEYWORDS[$key])) {
                throw new InvalidPgConfigException(sprintf(
                    'Unknown PostgreSQL connection keyword "%s"; use one of: %s.',
                    $key,
                    implode(', ', array_keys(self::KEYWORDS)),
                ));
            }
        }

        return new self(
            host: $values['hostaddr'] ?? $values['host'] ?? '127.0.0.1',
            port: isset($values['port']) ? self::integer('port', $values['port']) : 5432,
            database: $values['dbname'] ?? 'postgres',
            user: $values['user'] ?? 'postgres',
            password: $values['password'] ?? '',
            connectTimeout: isset($values['connect_timeout']) ? self::seconds('connect_timeout', $values['connect_timeout']) : self::DEFAULT_CONNECT_TIMEOUT,
            queryTimeout: isset($values['query_timeout']) ? self::seconds('query_timeout', $values['query_timeout']) : self::DEFAULT_QUERY_TIMEOUT,
            applicationName: $values['application_name'] ?? 'nexus',
        );
    }

    /**
     * The libpq connection string for pg_connect(). The timeouts are not in it: the client
     * enforces them on the loop.
     */
    public function toConnectionString(): string
    {
        $parts = [
            'host=' . self::quote($this->host),
            'port=' . $this->port,
            'dbname=' . self::quote($this->database),
            'user=' . self::quote($this->user),
        ];
        if ($this->password !== '') {
            $parts[] = 'password=' . self::quote($this->password);
        }
        if ($this->applicationName !== '') {
            $parts[] = 'application_name=' . self::quote($this->applicationName);
        }

        return implode(' ', $parts);
    }

    public function withQueryTimeout(?float $queryTimeout): self
    {
        return new self($this->host, $this->port, $this->database, $this->user, $this->password, $this->connectTimeout, $queryTimeout, $this->applicationName);
    }

    public function withDatabase(string $database): self
    {
        return new self($this->host, $this->port, $database, $this->user, $this->password, $this->connectTimeout, $this->queryTimeout, $this->applicationName);
    }

    /**
     * @return array<string, string>
     */
    private static function parseKeywords(string $dsn): array
    {
        $values = [];
        $length = \strlen($dsn);
        $i = 0;
        while (true) {
            $i += strspn($dsn, " \t\r\n", $i);
            if ($i >= $length) {
                return $values;
            }
            $eq = strpos($dsn, '=', $i);
            if ($eq === false) {
                throw new InvalidPgConfigException(sprintf('Malformed PostgreSQL DSN: "%s" has no "=value"; write key=value pairs separated by spaces.', substr($dsn, $i)));
            }
            $key = rtrim(substr($dsn, $i, $eq - $i));
            if ($key === '' || strpbrk($key, " \t\r\n'") !== false) {
                throw new InvalidPgConfigException(sprintf('Malformed PostgreSQL DSN near "%s": expected key=value.', substr($dsn, $i, 40)));
            }
            $i = $eq + 1;
            $i += strspn($dsn, " \t", $i);
            $value = '';
            if ($i < $length && $dsn[$i] === "'") {
                ++$i;
                while (true) {
                    if ($i >= $length) {
                        throw new InvalidPgConfigException("Malformed PostgreSQL DSN: the quoted value of \"{$key}\" is not closed with a single quote.");
                    }
                    $char = $dsn[$i++];
                    if ($char === "'") {
                        break;
                    }
                    if ($char === '\\' && $i < $length) {
                        $char = $dsn[$i++];
                    }
                    $value .= $char;
                }
            } else {
                $end = strcspn($dsn, " \t\r\n", $i);
                $value = substr($dsn, $i, $end);
                $i += $end;
            }
            if (isset($values[$key])) {
                throw new InvalidPgConfigException("The PostgreSQL DSN gives \"{$key}\" twice.");
            }
            $values[$key] = $value;
        }
    }

    private static function integer(string $key, string $value): int
    {
        if (!ctype_digit($value)) {
            throw new InvalidPgConfigException("The PostgreSQL DSN keyword \"{$key}\" needs a whole number, got \"{$value}\".");
        }

        return (int) $value;
    }

    private static function seconds(string $key, string $value): float
    {
        if (!is_numeric($value)) {
            throw new InvalidPgConfigException("The PostgreSQL DSN keyword \"{$key}\" needs a number of seconds, got \"{$value}\".");
        }

        return (float) $value;
    }

    private static function quote(string $value): string
    {
        return "'" . addcslashes($value, "'\\") . "'";
    }
}
