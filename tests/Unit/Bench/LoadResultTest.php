<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Bench;

use Nexus\Bench\Db\LoadResult;
use PHPUnit\Framework\TestCase;

final class LoadResultTest extends TestCase
{
    public function testHeldNeedsFewDropsFewErrorsAndTheThroughput(): void
    {
        self::assertTrue(self::loadResult(dropped: 9)->held());
        self::assertFalse(self::loadResult(dropped: 10)->held());
        self::assertFalse(self::loadResult(errors: 10)->held());
        self::assertFalse(self::loadResult(throughput: 90.0)->held());
        self::assertEqualsWithDelta(0.9, self::loadResult(dropped: 9)->droppedPercent(), 1e-9);
    }

    public function testRoundTripsThroughAnArray(): void
    {
        $result = self::loadResult(dropped: 3);
        $copy = LoadResult::fromArray($result->toArray());

        self::assertSame($result->toArray(), $copy->toArray());
        self::assertEqualsWithDelta(0.05, $copy->cpuShare(), 1e-9);
    }

    private static function loadResult(int $dropped = 0, int $errors = 0, float $throughput = 100.0): LoadResult
    {
        return new LoadResult(100.0, 10.0, 1000, 1000 - $dropped - $errors, $errors, $dropped, 0, $throughput, 10.0, 20.0, 30.0, 40.0, 0.5, 10.0, 8);
    }
}
