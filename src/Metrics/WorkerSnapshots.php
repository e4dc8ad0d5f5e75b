<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * What the master keeps of its workers' metrics: the last snapshot of each worker, and the totals
 * of workers that were replaced, so that summed counters and histograms never go down when a
 * worker restarts with its counters at zero (Prometheus would read that as a reset of the total
 * and spike rate()).
 *
 * put() with an incarnation different from the worker's previous one (or remove()) adds the
 * previous snapshot's Sum counters and histograms into the carried totals. Gauges and per-worker
 * series are not carried: they describe a process that is gone (a per-worker counter of the new
 * process starts from zero, which Prometheus handles as the reset it is). Bound: the carried
 * totals hold at most each metric's series limit of label sets (the rest go to its overflow
 * series), and one entry per worker slot is kept.
 *
 * @phpstan-import-type Families from Snapshot
 */
final class WorkerSnapshots
{
    /** @var array<string, array{incarnation: string, families: Families}> */
    private array $last = [];
    /** @var array{families: Families} */
    private array $carried = ['families' => []];

    /**
     * @param array{incarnation: string, families: Families} $snapshot
     */
    public function put(string $worker, array $snapshot): void
    {
        $previous = $this->last[$worker] ?? null;
        if ($previous !== null && $previous['incarnation'] !== $snapshot['incarnation']) {
            $this->carry($previous);
        }
        $this->last[$worker] = $snapshot;
    }

    /**
     * The worker's slot is gone for good (the pool shrank): keep its totals, forget the rest.
     */
    public function remove(string $worker): void
    {
        if (isset($this->last[$worker])) {
            $this->carry($this->last[$worker]);
            unset($this->last[$worker]);
        }
    }

    /**
     * @return list<string>
     */
    public function workers(): array
    {
        return array_map('strval', array_keys($this->last));
    }

    /**
     * Every worker's last snapshot merged, plus the carried totals.
     *
     * @return array{families: Families}
     */
    public function merged(): array
    {
        $all = $this->last;
        if ($this->carried['families'] !== []) {
            // Carried families are all Sum-aggregated, so the worker id of this entry shows nowhere.
            $all["\0carried"] = $this->carried + ['incarnation' => ''];
        }

        return SnapshotMerger::merge($all);
    }

    /**
     * @param array{incarnation: string, families: Families} $snapshot
     */
    private function carry(array $snapshot): void
    {
        $kept = [];
        foreach ($snapshot['families'] as $name => $family) {
            if ($family['aggregation'] === Aggregation::Sum->value && $family['type'] !== MetricType::Gauge->value) {
                $kept[$name] = $family;
            }
        }
        $this->carried = SnapshotMerger::merge(['carried' => $this->carried, 'gone' => ['families' => $kept]]);
        unset($this->carried['families'][SnapshotMerger::CONFLICTS]);
    }
}
