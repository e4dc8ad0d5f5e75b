<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * A counter family. Keep the series handles labels() returns; inc() and add() here are for
 * metrics without labels and go through one extra call.
 *
 * @extends Metric<CounterSeries>
 */
final class Counter extends Metric
{
    private ?CounterSeries $only = null;

    public function type(): MetricType
    {
        return MetricType::Counter;
    }

    public function inc(): void
    {
        ($this->only ??= $this->labels())->inc();
    }

    public function add(int|float $amount): void
    {
        ($this->only ??= $this->labels())->add($amount);
    }

    protected function newSeries(): CounterSeries
    {
        return new CounterSeries();
    }

    /**
     * @return array{list<string>, int|float}
     */
    protected function row(array $labels, object $series): array
    {
        return [$labels, $series->value()];
    }
}
