<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Pool\Exception\PoolClosedException;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * One ConnectionPool per key (an HTTP client's origin, "https://api.example:443"), made on first
 * use, each with the same PoolOptions (maxSize is then the cap per key), all under one total cap
 * of $maxTotal connections. When the total is reached and a key needs a new connection, the
 * connection idle the longest under any other key is closed to make room; with none idle, the
 * caller waits for a slot (its acquire timeout still applies).
 *
 * Bounds: at most $maxTotal connections; pools of keys with no connection and nobody waiting are
 * dropped once there are more than $maxTotal pools, so the map does not grow with every key ever
 * used. Acquire and release through this class (by key) rather than keeping pool($key) around.
 *
 * @template C of object
 */
final class KeyedConnectionPool
{
    /** @var array<string, ConnectionPool<C>> */
    private array $pools = [];
    private readonly SharedLimit $limit;
    private bool $closed = false;

    /**
     * @param \Closure(string): PoolConnector<C> $connectorFor the connector for one key
     * @param PoolOptions                        $perKey       the options of each key's pool
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly \Closure $connectorFor,
        private readonly PoolOptions $perKey = new PoolOptions(),
        int $maxTotal = 100,
        private readonly string $name = 'keyed connection pool',
    ) {
        $this->limit = new SharedLimit($maxTotal);
        $this->limit->setEvictor($this->evictIdle(...));
    }

    /**
     * @return Future<C>
     */
    public function acquire(string $key, ?Cancellation $cancellation = null): Future
    {
        return $this->pool($key)->acquire($cancellation);
    }

    /**
     * @return C|null an idle connection for $key at once, or null
     */
    public function tryAcquire(string $key): ?object
    {
        return isset($this->pools[$key]) ? $this->pools[$key]->tryAcquire() : null;
    }

    /**
     * @param C $connection
     */
    public function release(string $key, object $connection): void
    {
        $this->lent($key)->release($connection);
    }

    /**
     * @param C $connection
     */
    public function discard(string $key, object $connection): void
    {
        $this->lent($key)->discard($connection);
    }

    /**
     * @template R
     *
     * @param \Closure(C): R $work
     *
     * @return R
     */
    public function withConnection(string $key, \Closure $work, ?Cancellation $cancellation = null): mixed
    {
        return $this->pool($key)->withConnection($work, $cancellation);
    }

    /**
     * The pool of $key, made on first use.
     *
     * @return ConnectionPool<C>
     */
    public function pool(string $key): ConnectionPool
    {
        $pool = $this->pools[$key] ?? null;
        if ($pool !== null) {
            return $pool;
        }
        if ($this->closed) {
            throw new PoolClosedException("The {$this->name} is closed: it lends no more connections. Create a new pool.");
        }
        if (\count($this->pools) >= $this->limit->max) {
            $this->dropEmptyPools();
        }

        return $this->pools[$key] = new ConnectionPool($this->loop, ($this->connectorFor)($key), $this->perKey, "{$this->name} [{$key}]", $this->limit);
    }

    /**
     * Closes every key's pool (see ConnectionPool::close()).
     */
    public function close(): void
    {
        $this->closed = true;
        foreach ($this->pools as $pool) {
            $pool->close();
        }
    }

    /**
     * Connections open or being opened under all keys.
     *
     * @phpstan-impure it changes as the loop runs
     */
    public function size(): int
    {
        return $this->limit->used();
    }

    /**
     * @return list<string> the keys that have a pool
     */
    public function keys(): array
    {
        return array_map(strval(...), array_keys($this->pools));
    }

    /**
     * @return ConnectionPool<C>
     */
    private function lent(string $key): ConnectionPool
    {
        return $this->pools[$key] ?? throw new \LogicException("The {$this->name} has no pool for '{$key}', so it lent nothing for it: give a connection back under the key it was acquired with.");
    }

    /**
     * Closes the connection idle the longest under any key other than $for's.
     *
     * @param ConnectionPool<object> $for
     */
    private function evictIdle(ConnectionPool $for): bool
    {
        $oldest = null;
        $since = \INF;
        foreach ($this->pools as $pool) {
            if ($pool === $for) {
                continue;
            }
            $idleSince = $pool->oldestIdleSince();
            if ($idleSince !== null && $idleSince < $since) {
                $since = $idleSince;
                $oldest = $pool;
            }
        }

        return $oldest !== null && $oldest->closeOldestIdle();
    }

    private function dropEmptyPools(): void
    {
        foreach ($this->pools as $key => $pool) {
            if ($pool->size() === 0 && $pool->waitingCount() === 0) {
                $pool->close();
                unset($this->pools[$key]);
            }
        }
    }
}
