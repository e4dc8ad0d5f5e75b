<?php

declare(strict_types=1);

namespace Nexus\Actor\Supervision;

/**
 * Exponential backoff with jitter between restarts: the n-th restart within the window waits
 * min(max, min * 2^(n-1)) scaled by a random factor in [1, 1 + jitter].
 */
final class Backoff
{
    public function __construct(
        public readonly float $min,
        public readonly float $max,
        public readonly float $jitter = 0.2,
    ) {
        if ($min <= 0.0 || $max < $min) {
            throw new \InvalidArgumentException("Backoff needs 0 < min <= max, got min {$min} s and max {$max} s.");
        }
        if ($jitter < 0.0) {
            throw new \InvalidArgumentException("Backoff jitter cannot be negative, got {$jitter}.");
        }
    }

    /**
     * The delay before restart number $attempt (1 for the first).
     *
     * @param float $random a number in [0, 1); random by default
     */
    public function delay(int $attempt, ?float $random = null): float
    {
        $base = min($this->max, $this->min * 2 ** max(0, min($attempt - 1, 62)));
        $random ??= mt_rand() / (mt_getrandmax() + 1);

        return min($this->max * (1 + $this->jitter), $base * (1 + $this->jitter * $random));
    }
}
