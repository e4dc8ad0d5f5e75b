<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\SystemClock;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class ClockTest extends TestCase
{
    public function testAVirtualClockOnlyMovesWhenTold(): void
    {
        $clock = new VirtualClock(100.0);
        self::assertTrue($clock->isVirtual());
        self::assertSame(100.0, $clock->now());

        $clock->advance(0.5);
        self::assertSame(100.5, $clock->now());

        $clock->advanceTo(102.0);
        self::assertSame(102.0, $clock->now());
    }

    public function testAVirtualClockNeverMovesBackwards(): void
    {
        $clock = new VirtualClock(10.0);

        $clock->advanceTo(5.0);
        self::assertSame(10.0, $clock->now(), 'advanceTo() an earlier instant is ignored');

        $this->expectException(\InvalidArgumentException::class);
        $clock->advance(-1.0);
    }

    public function testTheSystemClockIsMonotonicAndCannotBeMoved(): void
    {
        $clock = new SystemClock();
        self::assertFalse($clock->isVirtual());

        $first = $clock->now();
        $clock->advanceTo($first + 3600.0);
        $second = $clock->now();

        self::assertGreaterThanOrEqual($first, $second);
        self::assertLessThan($first + 60.0, $second, 'advanceTo() is ignored by a real clock');
    }
}
