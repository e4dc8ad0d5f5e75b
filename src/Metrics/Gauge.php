<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * A gauge family whose values are set by the code (for values read at scrape time, see
 * Registry::gaugeCallback()). Keep the series handles labels() returns; set() here is for
 * metrics without labels.
 *
 * @extends Metric<GaugeSeries>
 */
final class Gauge extends Metric
{
    private ?GaugeSeries $only = null;

    public function type(): MetricType
    {
        return MetricType::Gauge;
    }

    public function set(int|float $value): void
    {
        ($this->only ??= $this->labels())->set($value);
    }

    public function add(int|float $amount): void
    {
        ($this->only ??= $this->labels())->add($amount);
    }

    protected function newSeries(): GaugeSeries
    {
        return new GaugeSeries();
    }

    /**
     * @return array{list<string>, int|float}
     */
    protected function row(array $labels, object $series): array
    {
        return [$labels, $series->value()];
    }
}
