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
        $loop->delay(0.25, static function (): void {}); // long enough that the tick still waits on a loaded machine
        $loop->tick(); // idle, but only 200 roots: not worth a collection
        self::assertSame($collected, gc_status()['collected'], 'a few roots wait');

        self::makeCycles(5_000); // 10,200 roots
        // Far enough ahead that the timer is not yet due when tick() runs on a loaded machine:
        // a due timer means a busy turn, which would not collect.
        $loop->delay(0.5, static function (): void {});
        $loop->tick(); // waits for the timer: idle, so it collects first
        self::assertGreaterThanOrEqual($collected + 10_200, gc_status()['collected'], 'the idle loop freed the cycles');

        $loop->collectCyclesInBatches(5_000);
        $collected = gc_status()['collected'];
        $loop->defer(static function (): void {});
        self::makeCycles(3_000); // 6,000 possible roots: above the limit
        $loop->tick(); // busy (a deferred callback is due): no idle wait, but over the limit
        self::assertGreaterThanOrEqual($collected + 6_000, gc_status()['collected'], 'too many roots: collected at once');
    }

    #[\PHPUnit\Framework\Attributes\RunInSeparateProcess]
    public function testCollectionsThatFreeLittleBackOffAndOnesThatFreeMuchComeBack(): void
    {
        $loop = new Loop();
        $loop->collectCyclesInBatches(100_000);
        $live = [];

        // 12,000 live cycles waiting: the idle loop collects, and frees nothing.
        $live[] = self::liveCycles(6_000);
        self::assertGreaterThanOrEqual(10_000, gc_status()['roots']);
        $runs = gc_status()['runs'];
        self::idleTick($loop);
        self::assertSame($runs + 1, gc_status()['runs'], 'collected once');

        // As many again: with the threshold doubled (20,000) the idle loop does not walk them again.
        $live[] = self::liveCycles(6_000);
        self::idleTick($loop);
        self::assertSame($runs + 1, gc_status()['runs'], 'backed off: no collection at 12,000 roots');

        // Garbage piles up to the raised threshold: collected, and it freed plenty.
        self::makeCycles(5_000);
        self::idleTick($loop);
        self::assertSame($runs + 2, gc_status()['runs'], 'collected at 22,000 roots');

        // Back at the start: 10,000 roots of garbage are collected when the loop idles.
        self::makeCycles(5_100);
        self::idleTick($loop);
        self::assertSame($runs + 3, gc_status()['runs'], 'the threshold came back down');
        self::assertCount(2, $live);
    }

    #[\PHPUnit\Framework\Attributes\RunInSeparateProcess]
    public function testABusyLoopBacksOffFasterFromCollectionsThatFreeNothing(): void
    {
        $loop = new Loop();
        $loop->collectCyclesInBatches(5_000);
        $live = [];

        // A burst that never lets the loop wait (actors starting by the thousand): 6,000 live
        // roots, over the busy limit, are collected at once and free nothing.
        $live[] = self::liveCycles(3_000);
        $runs = gc_status()['runs'];
        self::busyTick($loop);
        self::assertSame($runs + 1, gc_status()['runs'], 'collected once, over the busy limit');

        // 12,000 more: the busy threshold went to 20,000 (four times 5,000), so these are not
        // walked again while the burst lasts (doubling it would have collected at 10,000).
        $live[] = self::liveCycles(6_000);
        self::assertGreaterThanOrEqual(10_000, gc_status()['roots']);
        self::busyTick($loop);
        self::assertSame($runs + 1, gc_status()['runs'], 'backed off four-fold: no collection at 12,000 roots');

        // Garbage still gets collected once the raised threshold is reached.
        self::makeCycles(4_500);
        self::busyTick($loop);
        self::assertSame($runs + 2, gc_status()['runs'], 'collected at 21,000 roots');
        self::assertCount(2, $live);
    }

    public function testTheRootLimitMustBePositive(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        (new Loop())->collectCyclesInBatches(0);
    }

    private static function busyTick(Loop $loop): void
    {
        $loop->defer(static function (): void {}); // work is due: the turn does not wait
        $loop->tick();
    }

    private static function idleTick(Loop $loop): void
    {
        $loop->tick(false); // brings the loop's clock up to date: the timer below is then still ahead
        $loop->delay(0.05, static function (): void {});
        $loop->tick(); // waits for the timer: idle
    }

    /**
     * Pairs of objects that point at each other and stay referenced: possible roots that a
     * collection walks and cannot free.
     *
     * @return list<\stdClass>
     */
    private static function liveCycles(int $count): array
    {
        $kept = [];
        for ($i = 0; $i < $count; ++$i) {
            $a = new \stdClass();
            $b = new \stdClass();
            $a->other = $b;
            $b->other = $a;
            $kept[] = $a;
            unset($a, $b); // both are possible roots now, and both live on
        }

        return $kept;
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
