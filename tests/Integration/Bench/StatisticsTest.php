<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\Statistics;
use PHPUnit\Framework\TestCase;

final class StatisticsTest extends TestCase
{
    public function testTheMedianOfAnOddCountIsTheMiddleSample(): void
    {
        $statistics = Statistics::of([5.0, 1.0, 9.0, 3.0, 7.0]);

        self::assertSame(5.0, $statistics->median);
        self::assertSame(1.0, $statistics->min);
        self::assertSame(9.0, $statistics->max);
        self::assertSame(5, $statistics->count);
    }

    public function testTheMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleSamples(): void
    {
        $statistics = Statistics::of([4.0, 1.0, 3.0, 10.0]);

        self::assertSame(3.5, $statistics->median);
        self::assertSame(1.0, $statistics->min);
        self::assertSame(10.0, $statistics->max);
    }

    public function testOneOutlierDoesNotMoveTheMedian(): void
    {
        self::assertSame(2.0, Statistics::of([2.0, 2.0, 1000.0, 2.0, 2.0])->median);
    }

    public function testASingleSampleIsItsOwnMedianMinimumAndMaximum(): void
    {
        $statistics = Statistics::of([42.5]);

        self::assertSame([42.5, 42.5, 42.5, 1], [$statistics->median, $statistics->min, $statistics->max, $statistics->count]);
    }

    public function testSpreadIsTheRangeRelativeToTheMedian(): void
    {
        self::assertEqualsWithDelta(0.5, Statistics::of([8.0, 10.0, 13.0])->spread(), 1e-12);
        self::assertSame(0.0, Statistics::of([3.0, 3.0])->spread());
    }

    public function testNoSamplesIsAnError(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        Statistics::of([]);
    }

    public function testANonFiniteSampleIsAnError(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        Statistics::of([1.0, \INF]);
    }
}
