<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * CPU time from getrusage(), in seconds: what the benchmarks report beside wall time, because the
 * load of other processes on a shared machine disturbs it less. 0.0 when getrusage() fails.
 */
final class CpuTime
{
    /** getrusage()'s $mode for this process's terminated and waited-for children. */
    public const CHILDREN = 1;

    /**
     * User CPU of this process (or of its children with self::CHILDREN).
     */
    public static function user(int $mode = 0): float
    {
        return self::of(getrusage($mode), false);
    }

    /**
     * User and system CPU of this process (or of its children with self::CHILDREN).
     */
    public static function total(int $mode = 0): float
    {
        return self::of(getrusage($mode), true);
    }

    /**
     * @param array<mixed>|false $usage what getrusage() returned
     */
    private static function of(array|false $usage, bool $withSystem): float
    {
        if ($usage === false) {
            return 0.0;
        }
        $seconds = self::field($usage, 'ru_utime.tv_sec') + self::field($usage, 'ru_utime.tv_usec') / 1e6;

        return $withSystem ? $seconds + self::field($usage, 'ru_stime.tv_sec') + self::field($usage, 'ru_stime.tv_usec') / 1e6 : $seconds;
    }

    /**
     * @param array<mixed> $usage
     */
    private static function field(array $usage, string $key): float
    {
        $value = $usage[$key] ?? null;

        return is_numeric($value) ? (float) $value : 0.0;
    }
}
