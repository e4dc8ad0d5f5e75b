<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Runnable;
use Nexus\Runtime\Scheduler;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class SchedulerTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private Scheduler $scheduler;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $this->scheduler = $this->loop->scheduler();
    }

    public function testRunnablesRunInOrderInOneWorkerFiberWhenNothingWaits(): void
    {
        /** @var list<int> $ran */
        $ran = [];
        /** @var list<?\Fiber<mixed, mixed, mixed, mixed>> $fibers */
        $fibers = [];
        for ($i = 0; $i < 100; ++$i) {
            $this->scheduler->schedule(new ClosureRunnable(static function () use (&$ran, &$fibers, $i): void {
                $ran[] = $i;
                $fibers[] = \Fiber::getCurrent();
            }));
        }
        self::assertTrue($this->scheduler->hasWork());
        self::assertSame(0, $this->scheduler->fibersCreated(), 'no fiber before there is work to run');

        $this->loop->run();

        self::assertSame(range(0, 99), $ran);
        self::assertSame(1, $this->scheduler->fibersCreated());
        self::assertNotNull($fibers[0]);
        self::assertCount(1, array_unique(array_map(spl_object_id(...), array_filter($fibers))));
        self::assertCount(100, array_filter($fibers));
        self::assertFalse($this->scheduler->hasWork());
    }

    public function testARunnableIsReleasedOnceItsBatchIsDrained(): void
    {
        for ($budget = 1; $budget <= 3; ++$budget) { // the batch ends with the budget, or before it
            $loop = new Loop($this->clock, schedulerBudget: $budget);
            $runnable = new ClosureRunnable(static function (): void {});
            $loop->scheduler()->schedule($runnable);
            $released = \WeakReference::create($runnable);
            unset($runnable);

            $loop->runUntilIdle();

            self::assertNull($released->get(), "budget {$budget}: nothing keeps a runnable that has run");
        }
    }

    public function testALongQueueLetsGoOfWhatRanOnceItIsHalfOfItAndKeepsItsOrder(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 10);
        $scheduler = $loop->scheduler();
        /** @var list<int> $ran */
        $ran = [];
        /** @var list<\WeakReference<ClosureRunnable>> $released */
        $released = [];
        for ($i = 0; $i < 40; ++$i) {
            $runnable = new ClosureRunnable(static function () use (&$ran, $i, $scheduler): void {
                $ran[] = $i;
                if ($i >= 20 && $i % 10 === 0) {
                    // Scheduled while the queue is drained: it waits behind everything queued before.
                    $scheduler->schedule(new ClosureRunnable(static function () use (&$ran, $i): void {
                        $ran[] = 1000 + $i;
                    }));
                }
            });
            $scheduler->schedule($runnable);
            $released[] = \WeakReference::create($runnable);
        }
        unset($runnable);

        $loop->tick();
        self::assertSame(range(0, 9), $ran);
        $loop->tick();
        self::assertSame(range(0, 19), $ran);
        foreach (\array_slice($released, 0, 20) as $i => $reference) {
            self::assertNull($reference->get(), "runnable {$i} ran, and the ones taken are half of the queue: let go");
        }
        self::assertNotNull($released[20]->get(), 'a runnable still queued is kept');

        $loop->runUntilIdle();
        self::assertSame([...range(0, 39), 1020, 1030], $ran);
        self::assertFalse($scheduler->hasWork());
    }

    public function testTheWorkerFiberIsReusedAcrossTurnsAndRuns(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 10);
        $scheduler = $loop->scheduler();
        $count = 0;
        for ($i = 0; $i < 35; ++$i) {
            $scheduler->schedule(new ClosureRunnable(static function () use (&$count): void {
                ++$count;
            }));
        }

        $loop->tick();
        self::assertSame(10, $count, 'one turn runs one budget of runnables');
        $loop->run();
        self::assertSame(35, $count);
        $scheduler->schedule(new ClosureRunnable(static function () use (&$count): void {
            ++$count;
        }));
        $loop->run();

        self::assertSame(36, $count);
        self::assertSame(1, $scheduler->fibersCreated());
    }

    public function testAWaitingRunnableKeepsItsFiberWhileTheQueueGoesOnInASecondOne(): void
    {
        /** @var list<string> $log */
        $log = [];
        /** @var array<string, \Fiber<mixed, mixed, mixed, mixed>|null> $fibers */
        $fibers = [];
        /** @var Deferred<string> $reply */
        $reply = new Deferred($this->loop);
        $this->loop->delay(1.0, static function () use ($reply): void {
            $reply->resolve('reply');
        });
        $record = static function (string $name) use (&$log, &$fibers): void {
            $log[] = $name;
            $fibers[$name] = \Fiber::getCurrent();
        };
        $this->scheduler->schedule(new ClosureRunnable(static fn() => $record('r1')));
        $this->scheduler->schedule(new ClosureRunnable(static function () use ($record, $reply): void {
            $record('r2 start');
            $record('r2 got ' . $reply->future()->await());
        }));
        $this->scheduler->schedule(new ClosureRunnable(static fn() => $record('r3')));
        $this->scheduler->schedule(new ClosureRunnable(static fn() => $record('r4')));

        $this->loop->run();

        self::assertSame(['r1', 'r2 start', 'r3', 'r4', 'r2 got reply'], $log);
        self::assertSame(2, $this->scheduler->fibersCreated());
        self::assertSame($fibers['r1'], $fibers['r2 start']);
        self::assertNotSame($fibers['r2 start'], $fibers['r3'], 'the queue went on in another fiber');
        self::assertSame($fibers['r3'], $fibers['r4']);
        self::assertSame($fibers['r2 start'], $fibers['r2 got reply'], 'the waiter resumed in its own fiber');
    }

    public function testABurstOfRunnablesThatEachWaitAllStartInOneRun(): void
    {
        /** @var Deferred<int> $reply */
        $reply = new Deferred($this->loop);
        $started = 0;
        $done = 0;
        for ($i = 0; $i < 100; ++$i) {
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($reply, &$started, &$done): void {
                ++$started;
                $reply->future()->await();
                ++$done;
            }));
        }

        $this->scheduler->run();

        self::assertSame(100, $started, 'each waiter hands its fiber over and the queue goes on in the same run');
        self::assertFalse($this->scheduler->hasWork());
        self::assertSame(100, $this->scheduler->fibersCreated(), 'one fiber per waiter');
        $reply->resolve(1);
        $this->loop->runUntilIdle();
        self::assertSame(100, $done);
    }

    public function testTheBudgetOfOneRunCountsOverAllItsFibers(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 10);
        /** @var Deferred<int> $reply */
        $reply = new Deferred($loop);
        $started = 0;
        for ($i = 0; $i < 25; ++$i) {
            $loop->scheduler()->schedule(new ClosureRunnable(static function () use ($reply, &$started): void {
                ++$started;
                $reply->future()->await();
            }));
        }

        $loop->scheduler()->run();

        self::assertSame(10, $started, 'the budget bounds a run however many fibers it takes');
        self::assertTrue($loop->scheduler()->hasWork());
    }

    public function testFibersFreedByResumedWaitersArePooled(): void
    {
        /** @var array<string, \Fiber<mixed, mixed, mixed, mixed>|null> $fibers */
        $fibers = [];
        $record = static function (string $name) use (&$fibers): void {
            $fibers[$name] = \Fiber::getCurrent();
        };
        $wait = function (float $seconds): void {
            /** @var Deferred<null> $deferred */
            $deferred = new Deferred($this->loop);
            $this->loop->delay($seconds, static function () use ($deferred): void {
                $deferred->resolve(null);
            });
            $deferred->future()->await();
        };
        // First round: the waiter's fiber (A) is handed to it; B drains the rest.
        $this->scheduler->schedule(new ClosureRunnable(static function () use ($record, $wait): void {
            $record('first waiter');
            $wait(1.0);
        }));
        $this->scheduler->schedule(new ClosureRunnable(static fn() => $record('after first')));
        $this->loop->run();
        self::assertSame(2, $this->scheduler->fibersCreated());

        // Second round: B is handed to the next waiter and the queue continues in A, from the pool.
        $this->scheduler->schedule(new ClosureRunnable(static function () use ($record, $wait): void {
            $record('second waiter');
            $wait(1.0);
        }));
        $this->scheduler->schedule(new ClosureRunnable(static fn() => $record('after second')));
        $this->loop->run();

        self::assertSame(2, $this->scheduler->fibersCreated(), 'no new fiber: a pooled one took over');
        self::assertSame($fibers['after first'], $fibers['second waiter']);
        self::assertSame($fibers['first waiter'], $fibers['after second']);
    }

    public function testABurstOfWaitersLeavesAtMostTheIdleCapOfFibersBehind(): void
    {
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $done = 0;
        for ($i = 0; $i < 2_000; ++$i) {
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($gate, &$done): void {
                $gate->future()->await();
                ++$done;
            }));
        }
        $this->loop->runUntilIdle();
        self::assertGreaterThanOrEqual(2_000, $this->scheduler->fibersCreated(), 'each waiter holds a fiber');
        $memoryWhileWaiting = memory_get_usage();

        $gate->resolve(null);
        $this->loop->runUntilIdle();

        self::assertSame(2_000, $done);
        self::assertSame(Scheduler::MAX_IDLE_FIBERS, $this->scheduler->idleFibers());
        self::assertLessThan($memoryWhileWaiting - 2_000_000, memory_get_usage(), 'the fibers beyond the cap were freed');

        // The kept ones are reused: another burst of the cap's size creates none.
        $created = $this->scheduler->fibersCreated();
        /** @var Deferred<null> $second */
        $second = new Deferred($this->loop);
        for ($i = 0; $i < Scheduler::MAX_IDLE_FIBERS - 1; ++$i) {
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($second): void {
                $second->future()->await();
            }));
        }
        $this->loop->runUntilIdle();
        $second->resolve(null);
        $this->loop->runUntilIdle();
        self::assertSame($created, $this->scheduler->fibersCreated());
    }

    public function testThePoolKeepsAsManyFibersAsWaitedAtOnceAndShrinksWhenFewerDo(): void
    {
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        for ($i = 0; $i < 300; ++$i) {
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($gate): void {
                $gate->future()->await();
            }));
        }
        $this->loop->runUntilIdle();
        $gate->resolve(null);
        $this->loop->runUntilIdle();
        self::assertSame(300, $this->scheduler->idleFibers(), 'all 300 kept: the next burst of 300 makes no fiber');

        // The loop trims the pool when it is about to wait, once it was not needed for a second
        // (virtual time here).
        foreach ([0.6, 0.5] as $seconds) {
            $this->loop->delay($seconds, static function (): void {});
            $this->loop->run();
            self::assertSame(300, $this->scheduler->idleFibers(), 'needed less than a second ago: kept');
        }
        $this->loop->delay(0.1, static function (): void {});
        $this->loop->run();
        self::assertSame(Scheduler::MIN_IDLE_FIBERS, $this->scheduler->idleFibers(), 'trimmed once unneeded for a second');
    }

    public function testThePoolNowAndThenHandsOutTheFiberIdleLongest(): void
    {
        // Six fibers end up idle after a burst; from then on one waiter at a time would keep
        // reusing the same two with a plain last-in-first-out pool (the tracing JIT would never see
        // the others run again, see Scheduler::ROTATE_IDLE).
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        for ($i = 0; $i < 6; ++$i) {
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($gate): void {
                $gate->future()->await();
            }));
        }
        $this->loop->runUntilIdle();
        $gate->resolve(null);
        $this->loop->runUntilIdle();
        $created = $this->scheduler->fibersCreated();
        /** @var array<int, true> $used */
        $used = [];
        for ($round = 0; $round < 2 * Scheduler::ROTATE_IDLE; ++$round) {
            /** @var Deferred<null> $reply */
            $reply = new Deferred($this->loop);
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($reply): void {
                $reply->future()->await(); // hands its fiber over: the queue goes on in a pooled one
            }));
            $this->scheduler->schedule(new ClosureRunnable(static function () use ($reply, &$used): void {
                $used[spl_object_id(\Fiber::getCurrent() ?? throw new \LogicException('no fiber'))] = true;
                $reply->resolve(null);
            }));
            $this->loop->runUntilIdle();
        }

        self::assertSame($created, $this->scheduler->fibersCreated(), 'all from the pool');
        self::assertGreaterThan(2, \count($used), 'fibers from deeper in the pool ran too');
    }

    public function testTheCurrentRunnableIsRestoredWhenAWaiterResumes(): void
    {
        /** @var Deferred<null> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay(1.0, static function () use ($deferred): void {
            $deferred->resolve(null);
        });
        $scheduler = $this->scheduler;
        $seenAfterWait = null;
        $waiter = null;
        $waiter = new ClosureRunnable(static function () use ($scheduler, $deferred, &$waiter, &$seenAfterWait): void {
            $scheduler->current = $waiter;
            $deferred->future()->await();
            $seenAfterWait = $scheduler->current;
        });
        $other = null;
        $other = new ClosureRunnable(static function () use ($scheduler, &$other): void {
            $scheduler->current = $other;
        });
        $scheduler->schedule($waiter);
        $scheduler->schedule($other);

        $this->loop->run();

        self::assertInstanceOf(Runnable::class, $seenAfterWait);
        self::assertSame($waiter, $seenAfterWait);
    }

    public function testARunnableReschedulingItselfForeverDoesNotStarveTimers(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 8);
        $scheduler = $loop->scheduler();
        /** @var \ArrayObject<string, ?int> $state */
        $state = new \ArrayObject(['runs' => 0, 'runsWhenTimerFired' => null]);
        $busy = null;
        $busy = new ClosureRunnable(function () use (&$busy, $state, $scheduler): void {
            $state['runs'] = (int) $state['runs'] + 1;
            $this->clock->advance(1 / 1024); // each run takes a little (virtual) time
            if ($state['runsWhenTimerFired'] === null) {
                \assert($busy instanceof ClosureRunnable);
                $scheduler->schedule($busy);
            }
        });
        $scheduler->schedule($busy);
        $loop->delay(0.02, static function () use ($state): void {
            $state['runsWhenTimerFired'] = $state['runs'];
        });

        $loop->run();

        // 16 runs are 15.6 ms, 24 runs 23.4 ms: the timer fires at the first turn boundary after 20 ms.
        self::assertSame(24, $state['runsWhenTimerFired']);
        self::assertSame(25, $state['runs']);
    }

    public function testAZeroDelayTimerFiresAfterOneBudgetOfABusyQueue(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 5);
        $scheduler = $loop->scheduler();
        $state = new \ArrayObject(['runs' => 0, 'stop' => false]);
        $busy = null;
        $busy = new ClosureRunnable(static function () use (&$busy, $state, $scheduler): void {
            ++$state['runs'];
            if ($state['stop'] === false) {
                \assert($busy instanceof ClosureRunnable);
                $scheduler->schedule($busy);
            }
        });
        $scheduler->schedule($busy);
        $loop->tick();
        $runsBefore = $state['runs'];
        $firedAfter = null;
        $loop->delay(0.0, static function () use ($state, &$firedAfter): void {
            $firedAfter = $state['runs'];
            $state['stop'] = true;
        });

        $loop->run();

        self::assertSame(5, $runsBefore);
        self::assertSame(5, $firedAfter, 'the timer ran on the very next turn');
    }

    public function testAThrowingRunnableGoesToTheErrorHandlerAndTheQueueGoesOn(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
            if (\count($errors) > 3) {
                $this->loop->stop(); // a wedged scheduler fails this test instead of hanging it
            }
        });
        $boom = new \RuntimeException('runnable failed');
        /** @var list<string> $log */
        $log = [];
        $this->scheduler->schedule(new ClosureRunnable(static function () use (&$log): void {
            $log[] = 'before';
        }));
        $this->scheduler->schedule(new ClosureRunnable(static function () use ($boom): void {
            throw $boom;
        }));
        $this->scheduler->schedule(new ClosureRunnable(static function () use (&$log): void {
            $log[] = 'after';
        }));

        $this->loop->run();

        self::assertSame([$boom], $errors);
        self::assertSame(['before', 'after'], $log);
        self::assertFalse($this->scheduler->hasWork());
    }

    public function testAfterARunnableThrowsOutOfRunTheSchedulerStillWorks(): void
    {
        $boom = new \RuntimeException('unhandled in a runnable');
        $this->scheduler->schedule(new ClosureRunnable(static function () use ($boom): void {
            throw $boom;
        }));
        $ran = false;
        $this->scheduler->schedule(new ClosureRunnable(static function () use (&$ran): void {
            $ran = true;
        }));

        try {
            $this->loop->run();
            self::fail('run() should have rethrown');
        } catch (\RuntimeException $e) {
            self::assertSame($boom, $e);
        }
        // The worker fiber died with the exception; the queue goes on in a fresh one.
        $this->loop->run();

        self::assertTrue($ran);
        self::assertNull($this->scheduler->current);
    }

    public function testSuspendNeedsAFiber(): void
    {
        $this->expectException(\LogicException::class);
        $this->expectExceptionMessage('top-level');

        $this->scheduler->suspend();
    }

    public function testTheBudgetMustBePositive(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new Scheduler(0);
    }

    public function testTheLoopPassesItsBudgetOn(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new Loop($this->clock, schedulerBudget: -1);
    }
}
