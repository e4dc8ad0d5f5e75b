<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * Formatting of figures for people (3.21M msgs/s, 0.82 µs, 812 B).
 */
final class Units
{
    public static function opsPerSecond(float $value, string $unit): ?float
    {
        if (str_ends_with($unit, '/s')) {
            return $value;
        }
        if ($unit === 'us') {
            return $value > 0.0 ? 1e6 / $value : null;
        }

        return null;
    }

    public static function format(float $value, string $unit): string
    {
        if ($unit === 'us') {
            return self::number($value, $value < 10 ? 2 : ($value < 100 ? 1 : 0)) . ' µs';
        }
        if ($unit === 'B') {
            return number_format($value, 0, '.', ',') . ' B';
        }

        return self::compact($value) . ' ' . $unit;
    }

    /**
     * 3.21M, 453K, 812.
     */
    public static function compact(float $value): string
    {
        $abs = abs($value);
        if ($abs >= 1e9) {
            return self::number($value / 1e9, 2) . 'G';
        }
        if ($abs >= 1e6) {
            return self::number($value / 1e6, 2) . 'M';
        }
        if ($abs >= 1e3) {
            return self::number($value / 1e3, $abs >= 1e5 ? 0 : 1) . 'K';
        }

        return self::number($value, $abs >= 100 ? 0 : 1);
    }

    public static function ratio(?float $ratio): string
    {
        if ($ratio === null) {
            return '—';
        }

        return self::number($ratio, $ratio >= 10 ? 1 : ($ratio >= 0.1 ? 2 : 3)) . 'x';
    }

    private static function number(float $value, int $decimals): string
    {
        return number_format($value, $decimals, '.', ',');
    }
}
