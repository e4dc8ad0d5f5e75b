<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * A histogram family with fixed bucket bounds shared by all its series. Keep the series handles
 * labels() returns; observe() here is for metrics without labels.
 *
 * @extends Metric<HistogramSeries>
 */
final class Histogram extends Metric
{
    private ?HistogramSeries $only = null;

    /**
     * @param list<string>           $labelNames
     * @param list<float>            $bounds     checked by the registry (Buckets::check())
     * @param \Closure(string): void $onDrop
     */
    public function __construct(
        string $name,
        string $help,
        array $labelNames,
        int $maxSeries,
        Aggregation $aggregation,
        \Closure $onDrop,
        public readonly array $bounds,
    ) {
        parent::__construct($name, $help, $labelNames, $maxSeries, $aggregation, $onDrop);
    }

    public function type(): MetricType
    {
        return MetricType::Histogram;
    }

    public function observe(float $value): void
    {
        ($this->only ??= $this->labels())->observe($value);
    }

    protected function newSeries(): HistogramSeries
    {
        return new HistogramSeries($this->bounds);
    }

    public function snapshot(): array
    {
        return ['buckets' => $this->bounds] + parent::snapshot();
    }

    /**
     * @return array{list<string>, list<int>, float}
     */
    protected function row(array $labels, object $series): array
    {
        return [$labels, $series->counts(), $series->sum()];
    }
}
