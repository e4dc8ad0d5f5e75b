<?php

declare(strict_types=1);

namespace Nexus\Bench;

use Nexus\Actor\ActorSystem;
use Psr\Log\NullLogger;

/**
 * Helpers shared by the cases: systems to measure in, counts, timing.
 */
final class Bench
{
    /**
     * A fresh actor system. Failures are logged to a NullLogger: the restart case fails on
     * purpose, and a logger that keeps records would grow with every run.
     */
    public static function system(): ActorSystem
    {
        return new ActorSystem('bench', new NullLogger());
    }

    /**
     * Shuts a system down and lets its actors be freed before the next run.
     */
    public static function dispose(ActorSystem $system): void
    {
        $system->shutdown()->await();
    }

    /**
     * The full count divided by the scale, never below $minimum.
     */
    public static function scaled(int $full, int $scale, int $minimum = 1): int
    {
        return max($minimum, intdiv($full, max(1, $scale)));
    }

    /**
     * How many times a case whose workload takes well under a millisecond repeats it within one
     * run (each time in a fresh system, only the workload timed), so that a single timer tick or
     * scheduler hiccup does not decide a sample. One in the smoke run.
     */
    public static function rounds(int $scale, int $full = 10): int
    {
        return $scale > 1 ? 1 : $full;
    }

    public static function perSecond(int $operations, int $nanoseconds): float
    {
        return $operations / max(1, $nanoseconds) * 1e9;
    }

    public static function microsEach(int $nanoseconds, int $operations): float
    {
        return max(1, $nanoseconds) / 1e3 / max(1, $operations);
    }
}
