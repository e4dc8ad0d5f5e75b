<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\InvalidValueException;

/**
 * One series of a histogram (one combination of label values). observe() finds the bucket by a
 * binary search over the bounds and increments one slot of a packed array: no allocation while
 * no snapshot shares the array (after a snapshot, the first observe() copies it once).
 *
 * Bucket i counts the observations v with bounds[i-1] < v <= bounds[i]; the last slot counts
 * those above every bound (+Inf). The exposition makes them cumulative.
 */
final class HistogramSeries
{
    /** @var array<int, int> per bucket, not cumulative; one more slot than bounds (+Inf) */
    private array $counts;
    private float $sum = 0.0;
    private readonly int $bucketCount;

    /**
     * @param list<float> $bounds increasing upper bounds, +Inf excluded
     */
    public function __construct(private readonly array $bounds)
    {
        $this->bucketCount = \count($bounds);
        $this->counts = array_fill(0, $this->bucketCount + 1, 0);
    }

    /**
     * @throws InvalidValueException for NaN (it would make the sum NaN for ever)
     */
    public function observe(float $value): void
    {
        // Binary search for the first bound >= $value (4 steps for the 14 seconds buckets).
        $bounds = $this->bounds;
        $i = 0;
        $high = $this->bucketCount;
        while ($i < $high) {
            $middle = ($i + $high) >> 1;
            if ($value > $bounds[$middle]) {
                $i = $middle + 1;
            } else {
                $high = $middle;
            }
        }
        if ($i === 0 && is_nan($value)) {
            throw new InvalidValueException('A histogram cannot observe NaN; nothing was recorded.');
        }
        ++$this->counts[$i];
        $this->sum += $value;
    }

    /**
     * @return list<int> per bucket, not cumulative, +Inf last
     */
    public function counts(): array
    {
        return array_values($this->counts);
    }

    public function sum(): float
    {
        return $this->sum;
    }

    public function count(): int
    {
        return array_sum($this->counts);
    }
}
