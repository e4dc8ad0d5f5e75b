<?php

declare(strict_types=1);

namespace Nexus\Admin;

/**
 * HTTP latency over time for the dashboard, from the http.server.request.duration histogram:
 * each sample() takes the histogram's totals (all routes, methods and statuses added up), and
 * the difference from the previous sample gives the requests per second and the 50th, 95th and
 * 99th percentiles of that interval (interpolated within buckets, as Prometheus'
 * histogram_quantile() does; a percentile in the +Inf bucket reads as the highest bound).
 *
 * Bound: the last MAX_POINTS samples. A total that went down (a worker replaced without the
 * master carrying its totals) starts again from the new totals instead of giving a negative rate.
 *
 * @phpstan-import-type Family from \Nexus\Metrics\Snapshot
 */
final class HttpLatency
{
    public const FAMILY = 'http_server_request_duration_seconds';
    public const MAX_POINTS = 120;

    /** @var array{float, list<int>}|null time and bucket counts at the last sample */
    private ?array $previous = null;
    /** @var list<array{t: float, rps: float, p50: float|null, p95: float|null, p99: float|null}> */
    private array $points = [];
    private int $total = 0;

    /**
     * @param Family|null $family the histogram from a (merged) snapshot, null when there is none
     */
    public function sample(float $now, ?array $family): void
    {
        if ($family === null || !isset($family['buckets'])) {
            return;
        }
        $bounds = $family['buckets'];
        $counts = array_fill(0, \count($bounds) + 1, 0);
        foreach ([...$family['series'], ...$family['overflow']] as $row) {
            if (\is_array($row[1])) {
                foreach ($row[1] as $i => $count) {
                    $counts[$i] = ($counts[$i] ?? 0) + $count;
                }
            }
        }
        $counts = array_values($counts);
        $this->total = array_sum($counts);
        $previous = $this->previous;
        $this->previous = [$now, $counts];
        if ($previous === null || $now <= $previous[0] || \count($previous[1]) !== \count($counts)) {
            return;
        }
        $delta = [];
        foreach ($counts as $i => $count) {
            $delta[] = $count - $previous[1][$i];
            if ($count < $previous[1][$i]) {
                return;
            }
        }
        $this->points[] = [
            't' => round($now, 3),
            'rps' => round(array_sum($delta) / ($now - $previous[0]), 2),
            'p50' => self::quantile(0.5, $bounds, $delta),
            'p95' => self::quantile(0.95, $bounds, $delta),
            'p99' => self::quantile(0.99, $bounds, $delta),
        ];
        if (\count($this->points) > self::MAX_POINTS) {
            array_shift($this->points);
        }
    }

    /**
     * @return list<array{t: float, rps: float, p50: float|null, p95: float|null, p99: float|null}>
     */
    public function points(): array
    {
        return $this->points;
    }

    /**
     * Requests counted by the histogram so far (at the last sample).
     */
    public function total(): int
    {
        return $this->total;
    }

    /**
     * The $q quantile of observations counted per bucket (not cumulative, +Inf last); null when
     * there are none.
     *
     * @param list<float> $bounds
     * @param list<int>   $counts
     */
    public static function quantile(float $q, array $bounds, array $counts): ?float
    {
        $total = array_sum($counts);
        if ($total === 0) {
            return null;
        }
        $rank = $q * $total;
        $cumulative = 0;
        foreach ($counts as $i => $count) {
            if ($cumulative + $count >= $rank && $count > 0) {
                if (!isset($bounds[$i])) {
                    return $bounds[\count($bounds) - 1] ?? null;
                }
                $lower = $i === 0 ? 0.0 : $bounds[$i - 1];

                return $lower + ($bounds[$i] - $lower) * (($rank - $cumulative) / $count);
            }
            $cumulative += $count;
        }

        return $bounds[\count($bounds) - 1] ?? null;
    }
}
