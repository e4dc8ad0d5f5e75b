<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * Loop::collectCyclesInBatches(): cyclic garbage is still freed, when the loop idles or when too
 * many possible roots pile up, not by PHP's automatic collector. Runs in its own process: it turns
 * the collector off for the whole process.
 */
final class LoopGcTest extends TestCase
{
    protected function tearDown(): void
    {
        gc_enable();
    }

    #[\PHPUnit\Framework\Attributes\RunInSeparateProcess]
    public function testCyclesAreCollectedWhenTheLoopIdlesAndWhenRootsPileUp(): void
    {
        $loop = new Loop();
        $loop->collectCyclesInBatches(50_000);
        self::assertFalse(gc_enabled(), 'the automatic collector is off');

        $collected = gc_status()['collected'];
        self::makeCycles(100);
        $loop->delay(0.01, static function (): void {});
        $loop->tick(); // idle, but only 200 roots: not worth a collection
        self::assertSame($collected, gc_status()['collected'], 'a few roots wait');

        self::makeCycles(5_000); // 10,200 roots
        $loop->delay(0.01, static function (): void {});
        $loop->tick(); // waits for the timer: idle, so it collects first
        self::assertGreaterThanOrEqual($collected + 10_200, gc_status()['collected'], 'the idle loop freed the cycles');

        $loop->collectCyclesInBatches(5_000);
        $collected = gc_status()['collected'];
        $loop->defer(static function (): void {});
        self::makeCycles(3_000); // 6,000 possible roots: above the limit
        $loop->tick(); // busy (a deferred callback is due): no idle wait, but over the limit
        self::assertGreaterThanOrEqual($collected + 6_000, gc_status()['collected'], 'too many roots: collected at once');
    }

    public function testTheRootLimitMustBePositive(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        (new Loop())->collectCyclesInBatches(0);
    }

    private static function makeCycles(int $count): void
    {
        for ($i = 0; $i < $count; ++$i) {
            $a = new \stdClass();
            $b = new \stdClass();
            $a->other = $b;
            $b->other = $a;
        }
    }
}
