<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * Finds the highest request rate a server holds, in few steps: ramp up from $start by $factor
 * until a rate fails (or $max holds), then bisect between the highest rate held and the lowest
 * rate failed until they are within $precision of each other (or $maxSteps are used up).
 *
 *     $search = new RateSearch(50, 5000);
 *     while (($rate = $search->next()) !== null) {
 *         $search->record($rate, runAt($rate)->held());
 *     }
 *     $search->best(); // null when even the lowest rate tried failed
 */
final class RateSearch
{
    private ?int $held = null;
    private ?int $failed = null;
    private int $steps = 0;
    private ?int $pending = null;

    public function __construct(
        private readonly int $start,
        private readonly int $max,
        private readonly float $factor = 2.0,
        private readonly float $precision = 0.1,
        private readonly int $maxSteps = 12,
        private readonly int $min = 1,
    ) {
        if ($start < 1 || $min < 1 || $max < $start || $start < $min) {
            throw new \InvalidArgumentException("Rate search needs 1 <= min <= start <= max, got min {$min}, start {$start}, max {$max}.");
        }
        if ($factor <= 1.0 || $precision <= 0.0 || $maxSteps < 1) {
            throw new \InvalidArgumentException("Rate search needs factor > 1, precision > 0 and maxSteps >= 1, got {$factor}, {$precision}, {$maxSteps}.");
        }
    }

    /**
     * The next rate to try, or null when the search is over.
     */
    public function next(): ?int
    {
        if ($this->pending !== null) {
            return $this->pending;
        }
        if ($this->steps >= $this->maxSteps) {
            return null;
        }
        if ($this->failed === null) {
            if ($this->held === null) {
                return $this->pending = $this->start;
            }
            if ($this->held >= $this->max) {
                return null;
            }

            return $this->pending = min($this->max, max($this->held + 1, (int) round($this->held * $this->factor)));
        }
        $low = $this->held ?? 0;
        if ($this->failed <= $this->min || $this->failed - $low <= 1 || ($low > 0 && $this->failed <= $low * (1.0 + $this->precision))) {
            return null;
        }
        $next = intdiv($low + $this->failed, 2);
        if ($next < $this->min) {
            return null;
        }

        return $this->pending = $next;
    }

    public function record(int $rate, bool $held): void
    {
        if ($rate !== $this->pending) {
            throw new \LogicException("record() must report the rate next() gave ({$this->pending}), got {$rate}.");
        }
        $this->pending = null;
        ++$this->steps;
        if ($held) {
            $this->held = max($this->held ?? 0, $rate);
        } else {
            $this->failed = min($this->failed ?? \PHP_INT_MAX, $rate);
        }
    }

    /**
     * The highest rate held so far, null if none was.
     */
    public function best(): ?int
    {
        return $this->held;
    }

    /**
     * The lowest rate that failed, null if none did.
     */
    public function ceiling(): ?int
    {
        return $this->failed;
    }

    public function steps(): int
    {
        return $this->steps;
    }
}
