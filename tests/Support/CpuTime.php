<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

/**
 * CPU time of this process (user + system), for tests that show something does or does not spin.
 */
final class CpuTime
{
    public static function seconds(): float
    {
        $usage = getrusage();
        $seconds = 0.0;
        foreach (['ru_utime.tv_sec' => 1.0, 'ru_utime.tv_usec' => 1e-6, 'ru_stime.tv_sec' => 1.0, 'ru_stime.tv_usec' => 1e-6] as $field => $unit) {
            $value = $usage === false ? 0 : ($usage[$field] ?? 0);
            $seconds += (\is_int($value) ? $value : 0) * $unit;
        }

        return $seconds;
    }
}
