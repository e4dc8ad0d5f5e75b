<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\InvalidValueException;

/**
 * One series of a histogram (one combination of label values). observe() finds the bucket by
 * walking the bounds up from the smallest (durations are mostly small: a request of 3 ms takes
 * one comparison, where a binary search over the 14 seconds buckets always takes four steps of
 * twice the work) and increments one slot of a packed array: no allocation while no snapshot
 * shares the array (after a snapshot, the first observe() copies it once).
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
    /** @var list<float> the bounds and +Inf last, which stops the walk */
    private readonly array $walk;

    /**
     * @param list<float> $bounds increasing upper bounds, +Inf excluded
     */
    public function __construct(private readonly array $bounds)
    {
        $this->bucketCount = \count($bounds);
        $this->walk = [...$bounds, \INF];
        $this->counts = array_fill(0, $this->bucketCount + 1, 0);
    }

    /**
     * @throws InvalidValueException for NaN (it would make the sum NaN for ever)
     */
    public function observe(float $value): void
    {
        $walk = $this->walk;
        if ($value <= $walk[0]) {
            // The smallest bucket (most durations), without entering the loop below: under the
            // tracing JIT a loop ends the trace that reached it.
            ++$this->counts[0];
            $this->sum += $value;

            return;
        }
        // The first bound >= $value; +Inf (last) stops every value but NaN, which compares false.
        $i = 0;
        while ($value > $walk[$i]) {
            ++$i;
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
