<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * Percentiles of latency samples by the nearest-rank method: the p-th percentile is the smallest
 * sample with at least p % of the samples at or below it (p = 0 gives the minimum).
 */
final class Percentiles
{
    /**
     * @param list<float> $samples
     */
    public static function of(array $samples, float $percentile): ?float
    {
        if ($percentile < 0.0 || $percentile > 100.0) {
            throw new \InvalidArgumentException("A percentile must be between 0 and 100, got {$percentile}.");
        }
        if ($samples === []) {
            return null;
        }
        sort($samples);

        return self::ofSorted($samples, $percentile);
    }

    /**
     * Several percentiles at once, sorting only once.
     *
     * @param list<float> $samples
     * @param list<float> $percentiles
     *
     * @return list<float|null> one per percentile, in the order asked (null when there are no samples)
     */
    public static function many(array $samples, array $percentiles): array
    {
        sort($samples);
        $out = [];
        foreach ($percentiles as $p) {
            if ($p < 0.0 || $p > 100.0) {
                throw new \InvalidArgumentException("A percentile must be between 0 and 100, got {$p}.");
            }
            $out[] = $samples === [] ? null : self::ofSorted($samples, $p);
        }

        return $out;
    }

    /**
     * @param non-empty-list<float> $sorted ascending
     */
    private static function ofSorted(array $sorted, float $percentile): float
    {
        $count = \count($sorted);
        $rank = (int) ceil($percentile / 100.0 * $count);

        return $sorted[min($count, max(1, $rank)) - 1];
    }
}
