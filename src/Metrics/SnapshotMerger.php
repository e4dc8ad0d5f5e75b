<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * Combines the snapshots of several workers into one, for the master's /metrics. The rule, per
 * metric (its Aggregation):
 *
 * - Sum (counters and histograms by default): rows with the same label values are added up over
 *   the workers: counter and gauge values, histogram bucket counts and sums. No `worker` label.
 * - PerWorker (gauges by default): each worker's rows are kept, with a `worker` label first.
 *
 * A metric must have the same type, labels, aggregation and buckets in every snapshot; a worker
 * whose definition differs (during a rolling upgrade, say) or whose family is malformed is left
 * out of that metric only, and counted in nexus_metrics_merge_conflicts_total{metric}. A summed
 * metric keeps at most its series limit of distinct label sets; the rest are added into its
 * otel_metric_overflow series, as in a single registry.
 *
 * @phpstan-import-type Family from Snapshot
 * @phpstan-import-type Families from Snapshot
 * @phpstan-import-type Row from Snapshot
 */
final class SnapshotMerger
{
    public const CONFLICTS = 'nexus_metrics_merge_conflicts_total';

    /**
     * @param array<array-key, array{families: Families}|array<string, mixed>> $byWorker snapshots by worker id (the `worker` label value)
     *
     * @return array{families: Families}
     */
    public static function merge(array $byWorker): array
    {
        /** @var Families $out */
        $out = [];
        /** @var array<string, array<string, int>> $index row position by family and label key */
        $index = [];
        /** @var array<string, int> $conflicts */
        $conflicts = [];
        foreach ($byWorker as $worker => $snapshot) {
            $families = $snapshot['families'] ?? null;
            if (!\is_array($families)) {
                continue;
            }
            foreach ($families as $name => $family) {
                $name = (string) $name;
                if ($name === self::CONFLICTS) {
                    continue;
                }
                if (!Snapshot::validFamily($family)) {
                    $conflicts[$name] = ($conflicts[$name] ?? 0) + 1;
                    continue;
                }
                $perWorker = $family['aggregation'] === Aggregation::PerWorker->value;
                if (!isset($out[$name])) {
                    $out[$name] = $family;
                    $out[$name]['series'] = [];
                    $out[$name]['overflow'] = [];
                    if ($perWorker) {
                        $out[$name]['labels'] = ['worker', ...$family['labels']];
                        $out[$name]['overflowLabels'] = ['worker', ...$family['overflowLabels']];
                    }
                    $index[$name] = [];
                } elseif (!self::compatible($out[$name], $family, $perWorker)) {
                    $conflicts[$name] = ($conflicts[$name] ?? 0) + 1;
                    continue;
                }
                if ($perWorker) {
                    foreach ($family['series'] as $row) {
                        $row[0] = [(string) $worker, ...$row[0]];
                        $out[$name]['series'][] = $row;
                    }
                    foreach ($family['overflow'] as $row) {
                        $row[0] = [(string) $worker, ...$row[0]];
                        $out[$name]['overflow'][] = $row;
                    }
                    continue;
                }
                foreach ($family['series'] as $row) {
                    $key = implode("\0", $row[0]);
                    if (isset($index[$name][$key])) {
                        $position = $index[$name][$key];
                        $out[$name]['series'][$position] = self::add($out[$name]['series'][$position], $row);
                    } elseif (\count($out[$name]['series']) < $out[$name]['limit']) {
                        $index[$name][$key] = \count($out[$name]['series']);
                        $out[$name]['series'][] = $row;
                    } else {
                        $row[0] = [];
                        $out[$name]['overflow'] = self::addOverflow($out[$name]['overflow'], $row);
                    }
                }
                foreach ($family['overflow'] as $row) {
                    $out[$name]['overflow'] = self::addOverflow($out[$name]['overflow'], $row);
                }
            }
        }
        if ($conflicts !== []) {
            $rows = [];
            foreach ($conflicts as $name => $count) {
                $rows[] = [[(string) $name], $count];
            }
            $out[self::CONFLICTS] = [
                'type' => MetricType::Counter->value,
                'help' => 'Worker snapshots of a metric left out of the merge because their definition differed or was malformed.',
                'labels' => ['metric'],
                'aggregation' => Aggregation::Sum->value,
                'limit' => Registry::MAX_METRICS,
                'series' => $rows,
                'overflowLabels' => [],
                'overflow' => [],
            ];
        }

        return ['families' => $out];
    }

    /**
     * @param Family $merged
     * @param Family $family
     */
    private static function compatible(array $merged, array $family, bool $perWorker): bool
    {
        return $merged['type'] === $family['type']
            && $merged['aggregation'] === $family['aggregation']
            && $merged['labels'] === ($perWorker ? ['worker', ...$family['labels']] : $family['labels'])
            && ($merged['buckets'] ?? null) === ($family['buckets'] ?? null);
    }

    /**
     * @param list<Row> $overflow
     * @param Row       $row
     *
     * @return list<Row>
     */
    private static function addOverflow(array $overflow, array $row): array
    {
        if ($overflow === []) {
            return [$row];
        }
        $overflow[0] = self::add($overflow[0], $row);

        return $overflow;
    }

    /**
     * @param Row $into
     * @param Row $row
     *
     * @return Row
     */
    private static function add(array $into, array $row): array
    {
        if (\is_array($into[1]) && \is_array($row[1])) {
            $counts = array_map(static fn(int $a, int $b): int => $a + $b, $into[1], $row[1]);

            return [$into[0], $counts, $into[2] + $row[2]];
        }
        if (!\is_array($into[1]) && !\is_array($row[1])) {
            return [$into[0], $into[1] + $row[1]];
        }

        return $into;
    }
}
