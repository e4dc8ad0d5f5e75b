<?php

declare(strict_types=1);

namespace Nexus\Redis;

use Nexus\Redis\Exception\InvalidRedisConfigException;
use Nexus\Redis\Exception\InvalidRedisUriException;
use Nexus\Redis\Protocol\RespParser;

/**
 * Where and how to connect to Redis.
 *
 * Give an IP address as host: a host name (other than "localhost") is resolved with
 * gethostbyname() when connecting, and that call blocks the whole loop.
 *
 * Bounded by default: connecting takes at most 10 s, a command waits at most 30 s for its reply,
 * and a reply nests at most 64 arrays deep, holds at most 1,000,000 elements and bulk strings of at
 * most 512 MiB. Past a timeout or a limit the connection is closed and its pending commands fail
 * with a typed exception (RedisConnectTimeoutException, RedisTimeoutException,
 * RedisReplyLimitException).
 */
final readonly class RedisConfig
{
    public const DEFAULT_CONNECT_TIMEOUT = 10.0;
    public const DEFAULT_COMMAND_TIMEOUT = 30.0;

    /**
     * @param ?string $password         sent with AUTH on connect (null: no AUTH)
     * @param ?string $username         ACL user for AUTH (Redis 6+); null authenticates as "default"
     * @param int     $database         selected with SELECT on connect when not 0
     * @param float   $connectTimeout   seconds for the TCP connect, and again for AUTH/SELECT
     * @param ?float  $commandTimeout   seconds a command may wait for its reply; on expiry the
     *                                  connection is closed (replies are matched in order). Keep
     *                                  it above the timeout of any blocking command (BLPOP ...);
     *                                  null: no limit
     * @param int     $maxReplyDepth    arrays nested in one reply
     * @param int     $maxReplyElements elements in one reply, counted at every level
     * @param int     $maxBulkLength    bytes in one bulk string (Redis's own proto-max-bulk-len)
     */
    public function __construct(
        public string $host = '127.0.0.1',
        public int $port = 6379,
        public ?string $password = null,
        public int $database = 0,
        public float $connectTimeout = self::DEFAULT_CONNECT_TIMEOUT,
        public ?float $commandTimeout = self::DEFAULT_COMMAND_TIMEOUT,
        public ?string $username = null,
        public int $maxReplyDepth = RespParser::DEFAULT_MAX_DEPTH,
        public int $maxReplyElements = RespParser::DEFAULT_MAX_ELEMENTS,
        public int $maxBulkLength = RespParser::DEFAULT_MAX_BULK_LENGTH,
    ) {
        if ($host === '') {
            throw new InvalidRedisConfigException('The Redis host is empty: give an IP address such as 127.0.0.1.');
        }
        if ($port < 1 || $port > 65535) {
            throw new InvalidRedisConfigException("The Redis port must be between 1 and 65535, got {$port}.");
        }
        if ($database < 0) {
            throw new InvalidRedisConfigException("The Redis database number cannot be negative, got {$database}.");
        }
        if (!($connectTimeout > 0.0)) {
            throw new InvalidRedisConfigException("The connect timeout must be above zero seconds, got {$connectTimeout}.");
        }
        if ($commandTimeout !== null && !($commandTimeout > 0.0)) {
            throw new InvalidRedisConfigException("The command timeout must be above zero seconds (or null for none), got {$commandTimeout}.");
        }
        if ($username !== null && $password === null) {
            throw new InvalidRedisConfigException('A Redis username needs a password too (AUTH user password).');
        }
        if ($maxReplyDepth < 1 || $maxReplyElements < 1 || $maxBulkLength < 1) {
            throw new InvalidRedisConfigException("The reply limits must be at least 1 (maxReplyDepth {$maxReplyDepth}, maxReplyElements {$maxReplyElements}, maxBulkLength {$maxBulkLength}).");
        }
    }

    /**
     * A parser bounded by these limits.
     */
    public function parser(): RespParser
    {
        return new RespParser($this->maxReplyDepth, $this->maxReplyElements, $this->maxBulkLength);
    }

    public function withCommandTimeout(?float $commandTimeout): self
    {
        return new self($this->host, $this->port, $this->password, $this->database, $this->connectTimeout, $commandTimeout, $this->username, $this->maxReplyDepth, $this->maxReplyElements, $this->maxBulkLength);
    }

    /**
     * Reads redis://[[user]:password@]host[:port][/database]. User and password are
     * percent-decoded; the port defaults to 6379 and the database to 0.
     *
     * @throws InvalidRedisUriException
     */
    public static function fromUri(string $uri, float $connectTimeout = self::DEFAULT_CONNECT_TIMEOUT, ?float $commandTimeout = self::DEFAULT_COMMAND_TIMEOUT): self
    {
        $parts = parse_url($uri);
        if ($parts === false || !isset($parts['scheme'], $parts['host'])) {
            throw new InvalidRedisUriException("Not a Redis URI: '{$uri}'. Expected redis://[:password@]host[:port][/database], e.g. redis://127.0.0.1:6379/0.");
        }
        if (strtolower($parts['scheme']) !== 'redis') {
            throw new InvalidRedisUriException("Unsupported scheme '{$parts['scheme']}' in '{$uri}': only redis:// is supported (no TLS).");
        }
        if (isset($parts['query']) || isset($parts['fragment'])) {
            throw new InvalidRedisUriException("Unexpected query or fragment in '{$uri}': pass timeouts as arguments to fromUri().");
        }
        $database = 0;
        $path = $parts['path'] ?? '';
        if ($path !== '' && $path !== '/') {
            $db = substr($path, 1);
            if (!ctype_digit($db)) {
                throw new InvalidRedisUriException("The database in '{$uri}' must be a number (redis://host:port/2), got '{$db}'.");
            }
            $database = (int) $db;
        }
        $user = isset($parts['user']) && $parts['user'] !== '' ? rawurldecode($parts['user']) : null;
        $password = isset($parts['pass']) ? rawurldecode($parts['pass']) : null;
        if ($user !== null && $password === null) {
            // redis://secret@host is a common way to write a password without a user.
            [$user, $password] = [null, $user];
        }
        $host = $parts['host'];
        if (str_starts_with($host, '[') && str_ends_with($host, ']')) {
            $host = substr($host, 1, -1);
        }

        try {
            return new self($host, $parts['port'] ?? 6379, $password, $database, $connectTimeout, $commandTimeout, $user);
        } catch (InvalidRedisConfigException $e) {
            throw new InvalidRedisUriException("Invalid Redis URI '{$uri}': " . $e->getMessage(), 0, $e);
        }
    }

    /**
     * The socket address for Nexus\Io\Connector (tcp://ip:port). Resolves a host name, which blocks.
     *
     * @throws InvalidRedisConfigException when the host name does not resolve
     */
    public function address(): string
    {
        $host = $this->host === 'localhost' ? '127.0.0.1' : $this->host;
        if (filter_var($host, \FILTER_VALIDATE_IP, \FILTER_FLAG_IPV6) !== false) {
            return "tcp://[{$host}]:{$this->port}";
        }
        if (filter_var($host, \FILTER_VALIDATE_IP) === false) {
            $resolved = gethostbyname($host);
            if ($resolved === $host) {
                throw new InvalidRedisConfigException("Could not resolve the Redis host '{$host}': give an IP address.");
            }
            $host = $resolved;
        }

        return "tcp://{$host}:{$this->port}";
    }

    /**
     * host:port, for messages.
     */
    public function endpoint(): string
    {
        return str_contains($this->host, ':') ? "[{$this->host}]:{$this->port}" : "{$this->host}:{$this->port}";
    }
}
