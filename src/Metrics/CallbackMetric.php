<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\LabelValuesException;

/**
 * A counter or gauge whose values are read by a closure when a snapshot is taken, for figures
 * something else already keeps (dead letters by reason, memory in use, pool sizes): nothing runs
 * on the hot path at all.
 *
 * The closure returns a number (a metric without labels) or an iterable of
 * [list<string> $labelValues, int|float $value] rows; a histogram's closure returns rows of
 * [list<string> $labelValues, list<int> $countsPerBucket (not cumulative, +Inf last), float $sum]
 * (HistogramSeries::counts() and sum() of a series something else observes into). At most $maxSeries rows are kept; the rest
 * are added into the overflow series and counted as dropped label sets. A closure that throws, a
 * row of the wrong shape or a non-numeric value does not fail the snapshot: the family shows what
 * was read before the fault, and nexus_metrics_callback_errors_total{metric} counts it.
 *
 * @phpstan-import-type Family from Snapshot
 */
final class CallbackMetric
{
    private readonly int $labelCount;

    /**
     * @param list<string>                   $labelNames
     * @param \Closure(): mixed              $read
     * @param \Closure(string): void         $onDrop
     * @param \Closure(string, string): void $onError told the metric's name and what went wrong
     */
    public function __construct(
        public readonly string $name,
        public readonly string $help,
        public readonly MetricType $type,
        public readonly array $labelNames,
        public readonly int $maxSeries,
        public readonly Aggregation $aggregation,
        private readonly \Closure $read,
        private readonly \Closure $onDrop,
        private readonly \Closure $onError,
        /** @var list<float>|null a histogram's bucket bounds (+Inf implied) */
        public readonly ?array $bounds = null,
    ) {
        $this->labelCount = \count($labelNames);
    }

    /**
     * @return Family
     */
    public function snapshot(): array
    {
        $series = [];
        $overflow = null;
        try {
            $result = ($this->read)();
            if ($this->bounds !== null) {
                return $this->histogramSnapshot($result);
            }
            if (\is_int($result) || \is_float($result)) {
                if ($this->labelCount !== 0) {
                    throw new LabelValuesException('returned a number, but the metric has labels: return [labelValues, value] rows');
                }
                $series[] = [[], $result];
            } elseif (is_iterable($result)) {
                foreach ($result as $row) {
                    if (!\is_array($row) || !\is_array($row[0] ?? null) || !(\is_int($row[1] ?? null) || \is_float($row[1] ?? null))
                        || \count($row[0]) !== $this->labelCount || !array_is_list($row[0])) {
                        throw new LabelValuesException(\sprintf('returned a row that is not [list of %d label value(s), number]', $this->labelCount));
                    }
                    $values = self::labelValues($row[0]);
                    if (\count($series) >= $this->maxSeries) {
                        ($this->onDrop)($this->name);
                        $overflow = ($overflow ?? 0) + $row[1];
                        continue;
                    }
                    $series[] = [$values, $row[1]];
                }
            } else {
                throw new LabelValuesException('returned ' . get_debug_type($result) . ' instead of a number or rows of [labelValues, value]');
            }
        } catch (\Throwable $e) {
            ($this->onError)($this->name, $e->getMessage());
        }

        return [
            'type' => $this->type->value,
            'help' => $this->help,
            'labels' => $this->labelNames,
            'aggregation' => $this->aggregation->value,
            'limit' => $this->maxSeries,
            'series' => $series,
            'overflowLabels' => [],
            'overflow' => $overflow === null ? [] : [[[], $overflow]],
        ];
    }

    /**
     * @return Family
     */
    private function histogramSnapshot(mixed $result): array
    {
        \assert($this->bounds !== null);
        $slots = \count($this->bounds) + 1;
        $series = [];
        $overflow = null;
        try {
            if (!is_iterable($result)) {
                throw new LabelValuesException('returned ' . get_debug_type($result) . ' instead of rows of [labelValues, counts, sum]');
            }
            foreach ($result as $row) {
                if (!\is_array($row) || !\is_array($row[0] ?? null) || !array_is_list($row[0]) || \count($row[0]) !== $this->labelCount
                    || !\is_array($row[1] ?? null) || !array_is_list($row[1]) || \count($row[1]) !== $slots || !(\is_float($row[2] ?? null) || \is_int($row[2] ?? null))) {
                    throw new LabelValuesException(\sprintf('returned a row that is not [list of %d label value(s), list of %d counts, sum]', $this->labelCount, $slots));
                }
                $counts = [];
                foreach ($row[1] as $count) {
                    if (!\is_int($count) || $count < 0) {
                        throw new LabelValuesException('returned a bucket count that is not an integer of 0 or more');
                    }
                    $counts[] = $count;
                }
                $values = self::labelValues($row[0]);
                if (\count($series) >= $this->maxSeries) {
                    ($this->onDrop)($this->name);
                    if ($overflow === null) {
                        $overflow = [[], $counts, (float) $row[2]];
                    } else {
                        $sums = [];
                        foreach ($counts as $i => $count) {
                            $sums[] = $overflow[1][$i] + $count;
                        }
                        $overflow[1] = $sums;
                        $overflow[2] += (float) $row[2];
                    }
                    continue;
                }
                $series[] = [$values, $counts, (float) $row[2]];
            }
        } catch (\Throwable $e) {
            ($this->onError)($this->name, $e->getMessage());
        }

        return [
            'buckets' => $this->bounds,
            'type' => $this->type->value,
            'help' => $this->help,
            'labels' => $this->labelNames,
            'aggregation' => $this->aggregation->value,
            'limit' => $this->maxSeries,
            'series' => $series,
            'overflowLabels' => [],
            'overflow' => $overflow === null ? [] : [$overflow],
        ];
    }

    /**
     * The label values of a row the callback returned, each checked.
     *
     * @param array<mixed> $raw
     *
     * @return list<string>
     *
     * @throws LabelValuesException a value that is not a short UTF-8 string
     */
    private static function labelValues(array $raw): array
    {
        $values = [];
        foreach ($raw as $value) {
            if (!\is_string($value) || \strlen($value) > Metric::MAX_LABEL_VALUE_BYTES || !mb_check_encoding($value, 'UTF-8')) {
                throw new LabelValuesException('returned a label value that is not a short UTF-8 string');
            }
            $values[] = $value;
        }

        return $values;
    }
}
