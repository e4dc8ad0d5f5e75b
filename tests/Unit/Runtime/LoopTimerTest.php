<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class LoopTimerTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
    }

    public function testDelayFiresOnceAtItsDueTimeWithItsId(): void
    {
        /** @var list<array{int, float}> $calls */
        $calls = [];
        $id = $this->loop->delay(2.0, function (int $timer) use (&$calls): void {
            $calls[] = [$timer, $this->loop->now()];
        });

        $this->loop->run();

        self::assertSame([[$id, 2.0]], $calls);
        self::assertSame(2.0, $this->clock->now());
        self::assertFalse($this->loop->isAlive(), 'a fired one-shot timer no longer keeps the loop alive');
    }

    public function testTimersFireInDueOrderAtTheirOwnInstants(): void
    {
        /** @var list<array{string, float}> $fired */
        $fired = [];
        foreach (['c' => 3.0, 'a' => 0.5, 'd' => 4.25, 'b' => 1.0] as $name => $delay) {
            $this->loop->delay($delay, function () use (&$fired, $name): void {
                $fired[] = [$name, $this->clock->now()];
            });
        }

        $this->loop->run();

        self::assertSame([['a', 0.5], ['b', 1.0], ['c', 3.0], ['d', 4.25]], $fired);
    }

    public function testTimersWithEqualDueTimesFireInRegistrationOrder(): void
    {
        /** @var list<int> $fired */
        $fired = [];
        for ($i = 0; $i < 50; ++$i) {
            $this->loop->delay(1.0, static function () use (&$fired, $i): void {
                $fired[] = $i;
            });
        }

        $this->loop->run();

        self::assertSame(range(0, 49), $fired);
    }

    public function testEqualDueTimesStayInRegistrationOrderAmongOtherTimers(): void
    {
        /** @var list<string> $fired */
        $fired = [];
        $expected = [[], [], []];
        for ($i = 0; $i < 30; ++$i) {
            $slot = ($i * 2) % 3;
            $expected[$slot][] = "{$slot}:{$i}";
            $this->loop->delay((float) $slot, static function () use (&$fired, $slot, $i): void {
                $fired[] = "{$slot}:{$i}";
            });
        }

        $this->loop->run();

        self::assertSame(array_merge(...$expected), $fired);
    }

    public function testANegativeDelayFiresOnTheNextTurnWithoutMovingTime(): void
    {
        $fired = false;
        $this->loop->delay(-5.0, static function () use (&$fired): void {
            $fired = true;
        });

        $this->loop->tick();

        self::assertTrue($fired);
        self::assertSame(0.0, $this->clock->now());
    }

    public function testACancelledTimerDoesNotFireAndDoesNotKeepTheLoopAlive(): void
    {
        $fired = false;
        $id = $this->loop->delay(1.0, static function () use (&$fired): void {
            $fired = true;
        });
        $this->loop->cancel($id);

        $this->loop->run();

        self::assertFalse($fired);
        self::assertSame(0.0, $this->clock->now(), 'run() returned without waiting for the cancelled timer');
    }

    public function testCancellingOneTimerLeavesTheOthers(): void
    {
        /** @var list<string> $fired */
        $fired = [];
        $this->loop->delay(1.0, static function () use (&$fired): void {
            $fired[] = 'first';
        });
        $doomed = $this->loop->delay(2.0, static function () use (&$fired): void {
            $fired[] = 'cancelled';
        });
        $this->loop->delay(3.0, static function () use (&$fired): void {
            $fired[] = 'third';
        });
        $this->loop->delay(0.5, function () use ($doomed): void {
            $this->loop->cancel($doomed);
        });

        $this->loop->run();

        self::assertSame(['first', 'third'], $fired);
    }

    public function testCancellingUnknownOrAlreadyFiredIdsIsIgnored(): void
    {
        $count = 0;
        $id = $this->loop->delay(1.0, static function () use (&$count): void {
            ++$count;
        });
        $this->loop->run();

        $this->loop->cancel($id);
        $this->loop->cancel(987_654);
        // The bookkeeping of live registrations is intact: a new timer still keeps run() going.
        $this->loop->delay(1.0, static function () use (&$count): void {
            ++$count;
        });
        $this->loop->run();

        self::assertSame(2, $count);
        self::assertSame(2.0, $this->clock->now());
    }

    public function testARepeatingTimerCanCancelItselfInsideItsCallback(): void
    {
        /** @var list<float> $times */
        $times = [];
        $this->loop->repeat(1.0, function (int $id) use (&$times): void {
            $times[] = $this->clock->now();
            if (\count($times) === 3) {
                $this->loop->cancel($id);
            }
        });

        $this->loop->run();

        self::assertSame([1.0, 2.0, 3.0], $times);
        self::assertFalse($this->loop->isAlive());
    }

    public function testAOneShotTimerCancellingItselfInItsCallbackDoesNotUnbalanceTheLoop(): void
    {
        $this->loop->delay(1.0, function (int $id): void {
            $this->loop->cancel($id);
        });
        $this->loop->run();

        $fired = false;
        $this->loop->delay(1.0, static function () use (&$fired): void {
            $fired = true;
        });
        $this->loop->run();

        self::assertTrue($fired, 'a second release of the same timer would leave run() without a reason to wait');
        self::assertSame(2.0, $this->clock->now());
    }

    public function testRepeatFiresAtAFixedRateAtExactInstants(): void
    {
        /** @var list<float> $times */
        $times = [];
        $this->loop->repeat(0.25, function (int $id) use (&$times): void {
            $times[] = $this->clock->now();
            if (\count($times) === 5) {
                $this->loop->cancel($id);
            }
        }, 0.5);

        $this->loop->run();

        self::assertSame([0.5, 0.75, 1.0, 1.25, 1.5], $times);
    }

    public function testRepeatWithoutInitialDelayFirstFiresAfterOneInterval(): void
    {
        /** @var list<float> $times */
        $times = [];
        $this->loop->repeat(1.5, function (int $id) use (&$times): void {
            $times[] = $this->clock->now();
            if (\count($times) === 3) {
                $this->loop->cancel($id);
            }
        });

        $this->loop->run();

        self::assertSame([1.5, 3.0, 4.5], $times);
    }

    public function testRepeatKeepsItsRateWhenItsCallbackTakesTime(): void
    {
        /** @var list<float> $times */
        $times = [];
        $this->loop->repeat(1.0, function (int $id) use (&$times): void {
            $times[] = $this->clock->now();
            $this->clock->advance(0.25); // the callback's own work
            if (\count($times) === 4) {
                $this->loop->cancel($id);
            }
        });

        $this->loop->run();

        self::assertSame([1.0, 2.0, 3.0, 4.0], $times, 'fixed rate, not fixed delay: the work does not shift later firings');
    }

    public function testARepeatingTimerThatFellBehindDoesNotFireABurstToCatchUp(): void
    {
        /** @var list<float> $times */
        $times = [];
        $this->loop->repeat(1.0, function (int $id) use (&$times): void {
            $times[] = $this->clock->now();
            if (\count($times) === 1) {
                $this->clock->advance(3.5); // stalls the loop past three due instants (2, 3 and 4)
            }
            if (\count($times) === 4) {
                $this->loop->cancel($id);
            }
        });

        $this->loop->run();

        // One late firing once the loop is back, then one interval after that: 2, 3 and 4 are skipped.
        self::assertSame([1.0, 4.5, 5.5, 6.5], $times);
    }

    public function testRepeatRejectsANonPositiveInterval(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        $this->loop->repeat(0.0, static function (): void {});
    }

    public function testManyCancelledTimersNeitherFireNorKeepRunGoing(): void
    {
        $fired = 0;
        $ids = [];
        for ($i = 1; $i <= 5000; ++$i) {
            $ids[] = $this->loop->delay((float) $i, static function () use (&$fired): void {
                ++$fired;
            });
        }
        foreach ($ids as $id) {
            $this->loop->cancel($id);
        }

        $this->loop->run();

        self::assertSame(0, $fired);
        self::assertSame(0.0, $this->clock->now());
        self::assertNull($this->loop->nextTimerDue());
    }

    public function testLiveTimersAmongManyCancelledOnesFireInOrderAfterTheQueueIsCompacted(): void
    {
        /** @var list<int> $fired */
        $fired = [];
        // 100 live timers due together, then enough cancelled ones that the loop compacts its timer
        // heap (over 1024 entries, more than half of them dead): the ties must keep their order.
        for ($i = 0; $i < 100; ++$i) {
            $this->loop->delay(5.0, static function () use (&$fired, $i): void {
                $fired[] = $i;
            });
        }
        $doomed = [];
        for ($i = 0; $i < 1500; ++$i) {
            $doomed[] = $this->loop->delay(1.0 + $i / 1000, static function () use (&$fired): void {
                $fired[] = -1;
            });
        }
        foreach ($doomed as $id) {
            $this->loop->cancel($id);
        }

        self::assertSame(5.0, $this->loop->nextTimerDue());
        self::assertTrue($this->loop->tick(), 'one turn jumps straight to the live timers');
        self::assertSame(range(0, 99), $fired);
        self::assertSame(5.0, $this->clock->now());
        self::assertFalse($this->loop->isAlive());
    }
}
