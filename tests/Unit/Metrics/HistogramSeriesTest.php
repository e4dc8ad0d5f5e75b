<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Metrics;

use Nexus\Metrics\Buckets;
use Nexus\Metrics\Exception\InvalidValueException;
use Nexus\Metrics\HistogramSeries;
use PHPUnit\Framework\TestCase;

/**
 * observe() puts each value in the first bucket whose bound is >= the value (le is inclusive),
 * anything above the last bound in +Inf, and refuses NaN without counting it.
 */
final class HistogramSeriesTest extends TestCase
{
    public function testEachValueLandsInTheFirstBucketWhoseBoundHoldsIt(): void
    {
        $bounds = Buckets::SECONDS;
        $series = new HistogramSeries($bounds);
        $expected = array_fill(0, \count($bounds) + 1, 0);
        foreach ($bounds as $i => $bound) {
            $series->observe($bound);               // on the bound: that bucket
            $series->observe($bound - 1e-9);        // just under, still above the bound before: that bucket too
            $expected[$i] += 2;
        }
        $series->observe(-1.0);
        ++$expected[0];
        $series->observe(end($bounds) + 0.001);
        $series->observe(\INF);
        $expected[\count($bounds)] += 2;
        self::assertSame($expected, $series->counts());
        self::assertSame(\count($bounds) * 2 + 3, $series->count());
    }

    public function testNanIsRefusedAndNotCounted(): void
    {
        $series = new HistogramSeries([0.1, 1.0]);
        $series->observe(0.5);
        try {
            $series->observe(\NAN);
            self::fail('NaN must be refused');
        } catch (InvalidValueException) {
        }
        self::assertSame([0, 1, 0], $series->counts());
        self::assertSame(0.5, $series->sum());
    }
}
