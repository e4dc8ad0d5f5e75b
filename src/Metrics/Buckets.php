<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Metrics\Exception\MetricDefinitionException;

/**
 * Bucket bounds for histograms.
 */
final class Buckets
{
    /**
     * The bounds OpenTelemetry's semantic conventions advise for durations in seconds
     * (http.server.request.duration, db.client.operation.duration): 5 ms to 10 s.
     */
    public const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];

    /** Most bounds a histogram may have (each series holds one counter per bound). */
    public const MAX_BOUNDS = 64;

    /**
     * $count bounds growing by $factor from $start: exponential(0.001, 2, 10) is 1 ms .. 512 ms.
     *
     * @return list<float>
     */
    public static function exponential(float $start, float $factor, int $count): array
    {
        if (!($start > 0.0) || !($factor > 1.0) || $count < 1 || $count > self::MAX_BOUNDS) {
            throw new MetricDefinitionException(\sprintf('Exponential buckets need a start above 0, a factor above 1 and 1 to %d bounds, got start %s, factor %s, count %d.', self::MAX_BOUNDS, $start, $factor, $count));
        }
        $bounds = [];
        for ($i = 0, $bound = $start; $i < $count; ++$i, $bound *= $factor) {
            $bounds[] = $bound;
        }

        return $bounds;
    }

    /**
     * Checks $bounds and returns them as floats.
     *
     * @param list<int|float> $bounds
     *
     * @return list<float>
     *
     * @throws MetricDefinitionException when they are empty, too many, not finite or not increasing
     */
    public static function check(array $bounds): array
    {
        if ($bounds === [] || \count($bounds) > self::MAX_BOUNDS) {
            throw new MetricDefinitionException(\sprintf('A histogram needs 1 to %d bucket bounds, got %d.', self::MAX_BOUNDS, \count($bounds)));
        }
        $checked = [];
        $previous = -\INF;
        foreach ($bounds as $bound) {
            $bound = (float) $bound;
            if (!is_finite($bound) || $bound <= $previous) {
                throw new MetricDefinitionException('Histogram bucket bounds must be finite and strictly increasing (+Inf is always added), got [' . implode(', ', $bounds) . '].');
            }
            $checked[] = $previous = $bound;
        }

        return $checked;
    }
}
