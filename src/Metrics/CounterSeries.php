<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\InvalidValueException;

/**
 * One series of a counter (one combination of label values): the handle a hot path keeps and
 * calls. inc() is one property increment: no allocation, no lookup, no string.
 */
final class CounterSeries
{
    private int|float $value = 0;

    public function inc(): void
    {
        ++$this->value;
    }

    /**
     * @throws InvalidValueException for a negative or NaN amount (a counter only goes up)
     */
    public function add(int|float $amount): void
    {
        if (!($amount >= 0)) {
            throw new InvalidValueException(\sprintf('A counter only goes up: add() takes an amount of zero or more, got %s. Use a gauge for values that go down.', var_export($amount, true)));
        }
        $this->value += $amount;
    }

    public function value(): int|float
    {
        return $this->value;
    }
}
