<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Bench;

use Nexus\Bench\Db\Percentiles;
use PHPUnit\Framework\TestCase;

final class PercentilesTest extends TestCase
{
    public function testNearestRankOnOneToHundred(): void
    {
        $samples = array_map('floatval', range(100, 1));

        self::assertSame(50.0, Percentiles::of($samples, 50.0));
        self::assertSame(95.0, Percentiles::of($samples, 95.0));
        self::assertSame(99.0, Percentiles::of($samples, 99.0));
        self::assertSame(100.0, Percentiles::of($samples, 100.0));
        self::assertSame(1.0, Percentiles::of($samples, 0.0));
    }

    public function testSmallSamplesRoundUpToARealSample(): void
    {
        self::assertSame(7.0, Percentiles::of([7.0], 50.0));
        self::assertSame(2.0, Percentiles::of([3.0, 1.0, 2.0], 50.0));
        self::assertSame(3.0, Percentiles::of([3.0, 1.0, 2.0], 99.0));
        self::assertSame(2.0, Percentiles::of([1.0, 2.0, 3.0, 4.0], 50.0));
    }

    public function testManyKeepsTheOrderAsked(): void
    {
        $samples = array_map('floatval', range(1, 1000));

        self::assertSame([500.0, 950.0, 990.0, 1000.0], Percentiles::many($samples, [50.0, 95.0, 99.0, 100.0]));
        self::assertSame([null, null], Percentiles::many([], [50.0, 99.0]));
    }

    public function testEmptyGivesNull(): void
    {
        self::assertNull(Percentiles::of([], 50.0));
    }

    public function testRejectsAPercentileOutOfRange(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Percentiles::of([1.0], 101.0);
    }
}
