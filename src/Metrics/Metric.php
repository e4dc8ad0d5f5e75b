<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\LabelValuesException;

/**
 * A metric family: its name, help, declared label names, and one series per combination of label
 * values, created on first use by labels() and kept for the life of the process.
 *
 * Bound: at most $maxSeries combinations. labels() for a new combination past that returns the
 * overflow series, exposed as {otel_metric_overflow="true"} (the OpenTelemetry SDK's convention),
 * so totals stay right while the breakdown loses that part; each such call also counts one in
 * nexus_metrics_dropped_label_sets_total{metric="<name>"}. A caller that keeps the handle it got
 * asks once per combination, so that counter then counts dropped combinations.
 *
 * @phpstan-import-type Family from Snapshot
 * @phpstan-import-type Row from Snapshot
 *
 * @template TSeries of CounterSeries|GaugeSeries|HistogramSeries
 */
abstract class Metric
{
    /** Longest label value accepted, in bytes (a route template fits; a request body does not). */
    public const MAX_LABEL_VALUE_BYTES = 256;

    /** @var array<string, TSeries> by label-values key */
    private array $series = [];
    /** @var array<string, list<string>> label values by the same key */
    private array $values = [];
    /** @var TSeries|null */
    private ?object $overflow = null;
    private readonly int $labelCount;

    /**
     * @param list<string>                 $labelNames Prometheus label names, checked by the registry
     * @param \Closure(string): void       $onDrop     told the metric's name when a label set overflows
     */
    public function __construct(
        public readonly string $name,
        public readonly string $help,
        public readonly array $labelNames,
        public readonly int $maxSeries,
        public readonly Aggregation $aggregation,
        private readonly \Closure $onDrop,
    ) {
        $this->labelCount = \count($labelNames);
    }

    abstract public function type(): MetricType;

    /**
     * The series for these label values (one per declared label, in order), created on first use.
     * Keep what it returns: the lookup builds a key, the series' own methods allocate nothing.
     *
     * @return TSeries
     *
     * @throws LabelValuesException for a wrong number of values, or a value that is not short UTF-8
     */
    public function labels(string ...$values): object
    {
        if (\count($values) !== $this->labelCount) {
            throw new LabelValuesException(\sprintf(
                "Metric '%s' has labels (%s): pass %d value(s) in that order, got %d.",
                $this->name,
                implode(', ', $this->labelNames),
                $this->labelCount,
                \count($values),
            ));
        }
        $values = array_values($values);
        $key = $this->labelCount === 1 ? $values[0] : implode("\0", $values);
        if (isset($this->series[$key])) {
            return $this->series[$key];
        }
        foreach ($values as $value) {
            if (\strlen($value) > self::MAX_LABEL_VALUE_BYTES || !mb_check_encoding($value, 'UTF-8')) {
                throw new LabelValuesException(\sprintf(
                    "Metric '%s' got a label value that is %s: label values are short UTF-8 strings (at most %d bytes): route templates and kinds, never ids or payloads.",
                    $this->name,
                    \strlen($value) > self::MAX_LABEL_VALUE_BYTES ? \strlen($value) . ' bytes long' : 'not valid UTF-8',
                    self::MAX_LABEL_VALUE_BYTES,
                ));
            }
        }
        if (\count($this->series) >= $this->maxSeries) {
            ($this->onDrop)($this->name);

            return $this->overflow ??= $this->newSeries();
        }
        $this->values[$key] = $values;

        return $this->series[$key] = $this->newSeries();
    }

    /**
     * Label sets in use (the overflow series not counted).
     */
    public function seriesCount(): int
    {
        return \count($this->series);
    }

    /**
     * This family as plain arrays (see Registry::snapshot()).
     *
     * @return Family
     */
    public function snapshot(): array
    {
        $series = [];
        foreach ($this->series as $key => $one) {
            $series[] = $this->row($this->values[$key], $one);
        }

        return [
            'type' => $this->type()->value,
            'help' => $this->help,
            'labels' => $this->labelNames,
            'aggregation' => $this->aggregation->value,
            'limit' => $this->maxSeries,
            'series' => $series,
            'overflowLabels' => [],
            'overflow' => $this->overflow === null ? [] : [$this->row([], $this->overflow)],
        ];
    }

    /**
     * @return TSeries
     */
    abstract protected function newSeries(): object;

    /**
     * The snapshot row of one series: its label values, then its value(s).
     *
     * @param list<string> $labels
     * @param TSeries      $series
     *
     * @return Row
     */
    abstract protected function row(array $labels, object $series): array;
}
