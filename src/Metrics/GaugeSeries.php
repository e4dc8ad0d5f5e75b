<?php

declare(strict_types=1);

namespace Nexus\Metrics;

/**
 * One series of a gauge (one combination of label values): set, add or subtract. Each call is
 * one property write: no allocation, no lookup.
 */
final class GaugeSeries
{
    private int|float $value = 0;

    public function set(int|float $value): void
    {
        $this->value = $value;
    }

    public function inc(): void
    {
        ++$this->value;
    }

    public function dec(): void
    {
        --$this->value;
    }

    public function add(int|float $amount): void
    {
        $this->value += $amount;
    }

    public function value(): int|float
    {
        return $this->value;
    }
}
