<?php

declare(strict_types=1);

namespace Nexus\Pool;

/**
 * A cap on the connections of several pools together (an HTTP client's per-origin pools under one
 * total). A pool takes a slot before it opens a connection and gives it back when the connection
 * is closed. When none is free, the evictor may close an idle connection somewhere to make room;
 * otherwise the pool is remembered and served, first come first served, when a slot frees up.
 */
final class SharedLimit
{
    private int $used = 0;
    /** @var array<int, ConnectionPool<object>> pools with callers waiting for a slot, oldest first */
    private array $wanting = [];
    /** @var (\Closure(ConnectionPool<object>): bool)|null */
    private ?\Closure $evictor = null;

    public function __construct(public readonly int $max)
    {
        if ($max < 1) {
            throw new Exception\InvalidPoolOptionsException("A shared connection limit needs at least 1 connection, got {$max}.");
        }
    }

    /**
     * $evictor($pool) closes one idle connection of a pool other than $pool, if there is one, and
     * says whether it did.
     *
     * @param \Closure(ConnectionPool<object>): bool $evictor
     */
    public function setEvictor(\Closure $evictor): void
    {
        $this->evictor = $evictor;
    }

    /**
     * Takes a slot for $pool. When none is free (even after an eviction) and $wait is true, $pool
     * is told through slotFreed() once one is.
     *
     * @internal called by ConnectionPool
     *
     * @param ConnectionPool<object> $pool
     */
    public function tryTake(ConnectionPool $pool, bool $wait): bool
    {
        if ($this->used >= $this->max && $this->evictor !== null) {
            ($this->evictor)($pool);
        }
        if ($this->used < $this->max) {
            ++$this->used;

            return true;
        }
        if ($wait) {
            $this->wanting[spl_object_id($pool)] ??= $pool;
        }

        return false;
    }

    /**
     * @internal called by ConnectionPool when a connection that held a slot is closed
     */
    public function give(): void
    {
        --$this->used;
        while ($this->used < $this->max && $this->wanting !== []) {
            $id = array_key_first($this->wanting);
            $pool = $this->wanting[$id];
            unset($this->wanting[$id]);
            $pool->slotFreed();
        }
    }

    /**
     * @internal called by a ConnectionPool that closes
     *
     * @param ConnectionPool<object> $pool
     */
    public function forget(ConnectionPool $pool): void
    {
        unset($this->wanting[spl_object_id($pool)]);
    }

    /**
     * Whether a pool waits for a slot (an idle connection elsewhere is better closed).
     */
    public function isWanted(): bool
    {
        return $this->wanting !== [];
    }

    public function used(): int
    {
        return $this->used;
    }
}
