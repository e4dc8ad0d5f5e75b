<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Metrics\Buckets;
use Nexus\Metrics\HistogramSeries;

/**
 * What the pools of one name count (PgPool, RedisPool): the duration of their operations in a
 * HistogramSeries of Buckets::SECONDS (one binary search and one increment per operation, no
 * registry call, nothing allocated), and the pools themselves held weakly, whose connection
 * figures are read when someone asks (figures()). Pools of the same name share one; a pool
 * that is freed drops out of figures(), its durations stay counted (they never go back).
 *
 * Made by PoolDirectory, which keeps at most PoolDirectory::MAX_NAMES of them per process.
 */
final class PoolInstruments
{
    /** Operation durations in seconds (statements, commands, pipelines), for db.client.operation.duration. */
    public readonly HistogramSeries $durations;
    /** @var list<\WeakReference<ConnectionPool<covariant object>>> */
    private array $pools = [];

    /**
     * @param string $kind the db.system: postgresql or redis
     */
    public function __construct(
        public readonly string $kind,
        public readonly string $name,
    ) {
        $this->durations = new HistogramSeries(Buckets::SECONDS);
    }

    /**
     * @param ConnectionPool<covariant object> $pool
     */
    public function attach(ConnectionPool $pool): void
    {
        $this->pools = array_values(array_filter($this->pools, static fn(\WeakReference $pool): bool => $pool->get() !== null));
        $this->pools[] = \WeakReference::create($pool);
    }

    /**
     * The connections of the live pools of this name, added up: open (busy, idle, being opened or
     * made clean), used (lent out), idle, pending (callers waiting for one) and max.
     *
     * @return array{open: int, used: int, idle: int, pending: int, max: int, pools: int}
     */
    public function figures(): array
    {
        $figures = ['open' => 0, 'used' => 0, 'idle' => 0, 'pending' => 0, 'max' => 0, 'pools' => 0];
        foreach ($this->pools as $reference) {
            $pool = $reference->get();
            if ($pool === null || $pool->isClosed()) {
                continue;
            }
            $figures['open'] += $pool->size();
            $figures['used'] += $pool->borrowedCount();
            $figures['idle'] += $pool->idleCount();
            $figures['pending'] += $pool->waitingCount();
            $figures['max'] += $pool->options()->maxSize;
            ++$figures['pools'];
        }

        return $figures;
    }
}
