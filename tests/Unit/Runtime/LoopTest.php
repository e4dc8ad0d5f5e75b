<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class LoopTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
    }

    public function testDeferredCallbacksRunInOrderOnTheNextTurnNotAtOnce(): void
    {
        /** @var list<string> $log */
        $log = [];
        foreach (['a', 'b', 'c'] as $name) {
            $this->loop->defer(static function () use (&$log, $name): void {
                $log[] = $name;
            });
        }
        self::assertSame([], $log);

        $this->loop->tick();

        self::assertSame(['a', 'b', 'c'], $log);
    }

    public function testACallbackDeferredByADeferredCallbackRunsOnTheNextTurn(): void
    {
        /** @var list<string> $log */
        $log = [];
        $this->loop->defer(function () use (&$log): void {
            $log[] = 'a';
            $this->loop->defer(static function () use (&$log): void {
                $log[] = 'd';
            });
        });
        $this->loop->defer(static function () use (&$log): void {
            $log[] = 'b';
        });
        $this->loop->defer(static function () use (&$log): void {
            $log[] = 'c';
        });

        $this->loop->tick();
        self::assertSame(['a', 'b', 'c'], $log);

        $this->loop->tick();
        self::assertSame(['a', 'b', 'c', 'd'], $log);
        self::assertFalse($this->loop->isAlive());
    }

    public function testACallbackThatKeepsDeferringItselfDoesNotHoldUpTheTurn(): void
    {
        $turns = 0;
        $again = null;
        $again = function () use (&$again, &$turns): void {
            if (++$turns < 100) { // bounded, so that a regression fails instead of hanging
                $this->loop->defer($again);
            }
        };
        $this->loop->defer($again);
        $this->loop->delay(0.0, function (): void {
            $this->loop->stop();
        });

        $this->loop->run();

        self::assertSame(1, $turns, 'the turn that ran the timer ended: the re-deferred callback waited for the next turn');
    }

    public function testATimerThatReArmsItselfWithZeroDelayFiresOncePerTurn(): void
    {
        $firings = 0;
        $again = null;
        $again = function () use (&$again, &$firings): void {
            if (++$firings < 100) { // bounded, so that a regression fails instead of hanging
                $this->loop->delay(0.0, $again);
            }
        };
        $this->loop->delay(0.0, $again);

        $this->loop->tick();
        self::assertSame(1, $firings);
        $this->loop->tick();
        self::assertSame(2, $firings);

        $this->expectException(\RuntimeException::class);
        $this->expectExceptionMessage('did not become idle');
        $this->loop->runUntilIdle(20);
    }

    public function testATurnRunsDueTimersThenDeferredCallbacksThenRunnables(): void
    {
        /** @var list<string> $log */
        $log = [];
        $this->loop->scheduler()->schedule(new ClosureRunnable(static function () use (&$log): void {
            $log[] = 'runnable';
        }));
        $this->loop->defer(static function () use (&$log): void {
            $log[] = 'deferred';
        });
        $this->loop->delay(0.0, static function () use (&$log): void {
            $log[] = 'timer';
        });

        $this->loop->tick();

        self::assertSame(['timer', 'deferred', 'runnable'], $log);
    }

    public function testRunReturnsAtOnceWhenNothingIsRegistered(): void
    {
        self::assertFalse($this->loop->isAlive());
        self::assertFalse($this->loop->tick());

        $this->loop->run();

        self::assertSame(0.0, $this->clock->now());
    }

    public function testRunReturnsOnceTheLastReferencedRegistrationIsGone(): void
    {
        /** @var list<float> $fired */
        $fired = [];
        $this->loop->delay(1.0, function () use (&$fired): void {
            $fired[] = $this->clock->now();
            $this->loop->defer(function () use (&$fired): void {
                $this->loop->delay(2.0, function () use (&$fired): void {
                    $fired[] = $this->clock->now();
                });
            });
        });

        $this->loop->run();

        self::assertSame([1.0, 3.0], $fired);
        self::assertFalse($this->loop->isAlive());
    }

    public function testAnUnreferencedTimerDoesNotKeepRunGoing(): void
    {
        $fired = false;
        $id = $this->loop->delay(10.0, static function () use (&$fired): void {
            $fired = true;
        });
        $this->loop->unreference($id);

        $this->loop->run();

        self::assertFalse($fired);
        self::assertSame(0.0, $this->clock->now());
        self::assertSame(10.0, $this->loop->nextTimerDue(), 'the timer is still registered');
    }

    public function testAnUnreferencedTimerStillFiresWhileSomethingElseKeepsTheLoopGoing(): void
    {
        /** @var list<string> $fired */
        $fired = [];
        $housekeeping = $this->loop->delay(1.0, static function () use (&$fired): void {
            $fired[] = 'unreferenced';
        });
        $this->loop->unreference($housekeeping);
        $this->loop->delay(2.0, static function () use (&$fired): void {
            $fired[] = 'referenced';
        });

        $this->loop->run();

        self::assertSame(['unreferenced', 'referenced'], $fired);
    }

    public function testReferenceMakesAnUnreferencedTimerKeepRunGoingAgain(): void
    {
        $fired = false;
        $id = $this->loop->delay(4.0, static function () use (&$fired): void {
            $fired = true;
        });
        $this->loop->unreference($id);
        $this->loop->reference($id);

        $this->loop->run();

        self::assertTrue($fired);
        self::assertSame(4.0, $this->clock->now());
    }

    public function testUnreferencingTwiceCountsOnce(): void
    {
        $fired = false;
        $weak = $this->loop->delay(1.0, static function (): void {});
        $this->loop->unreference($weak);
        $this->loop->unreference($weak);
        $this->loop->unreference(123_456); // unknown ids are ignored
        $this->loop->delay(3.0, static function () use (&$fired): void {
            $fired = true;
        });

        $this->loop->run();

        self::assertTrue($fired, 'the referenced timer kept run() going');
        self::assertSame(3.0, $this->clock->now());
    }

    public function testCancellingAnUnreferencedTimerKeepsTheBookkeepingRight(): void
    {
        $weak = $this->loop->delay(1.0, static function (): void {});
        $this->loop->unreference($weak);
        $this->loop->cancel($weak);
        $this->loop->reference($weak); // no longer known: ignored

        $fired = false;
        $this->loop->delay(2.0, static function () use (&$fired): void {
            $fired = true;
        });
        $this->loop->run();

        self::assertTrue($fired);
        self::assertFalse($this->loop->isAlive());
    }

    public function testAnUnreferencedStreamWatcherDoesNotKeepRunGoing(): void
    {
        [$a, $b] = self::socketPair();
        $id = $this->loop->onReadable($a, static function (): void {});
        $this->loop->unreference($id);

        self::assertFalse($this->loop->isAlive());
        self::assertFalse($this->loop->tick());
        $this->loop->run();

        $this->loop->cancel($id);
        fclose($a);
        fclose($b);
    }

    public function testStopMakesRunReturnAfterTheCurrentTurnAndDoesNotStick(): void
    {
        $count = 0;
        $this->loop->repeat(1.0, function (int $id) use (&$count): void {
            ++$count;
            if ($count === 3) {
                $this->loop->stop();
            }
            if ($count === 5) {
                $this->loop->cancel($id);
            }
        });

        $this->loop->run();
        self::assertSame(3, $count);
        self::assertSame(3.0, $this->clock->now());
        self::assertTrue($this->loop->isAlive());

        $this->loop->run();
        self::assertSame(5, $count);
        self::assertFalse($this->loop->isAlive());
    }

    public function testRunUntilIdleRunsEverythingDueWithoutMovingTime(): void
    {
        /** @var list<string> $log */
        $log = [];
        $this->loop->delay(0.0, function () use (&$log): void {
            $log[] = 'timer';
            $this->loop->defer(static function () use (&$log): void {
                $log[] = 'deferred by timer';
            });
        });
        $this->loop->delay(5.0, static function () use (&$log): void {
            $log[] = 'later';
        });
        $this->loop->scheduler()->schedule(new ClosureRunnable(static function () use (&$log): void {
            $log[] = 'runnable';
        }));

        $this->loop->runUntilIdle();

        self::assertSame(['timer', 'deferred by timer', 'runnable'], $log);
        self::assertSame(0.0, $this->clock->now());
        self::assertSame(5.0, $this->loop->nextTimerDue());
    }

    public function testRunUntilIdleReturnsWhenOnlyACancelledTimerIsOverdue(): void
    {
        $id = $this->loop->delay(1.0, static function (): void {});
        $this->loop->cancel($id);
        $this->clock->advance(5.0);

        // Used to spin until $maxTurns and then claim something kept rescheduling itself.
        $this->loop->runUntilIdle(10);

        self::assertNull($this->loop->nextTimerDue());
    }

    public function testRunUntilIdleReturnsWhenNothingReferencedIsLeft(): void
    {
        $id = $this->loop->delay(1.0, static function (): void {});
        $this->loop->unreference($id);
        $this->clock->advance(5.0);

        $this->loop->runUntilIdle(10);

        self::assertFalse($this->loop->isAlive());
    }

    public function testRunUntilIdleGivesUpOnWorkThatReschedulesItselfForever(): void
    {
        $turns = 0;
        $again = null;
        $again = function () use (&$again, &$turns): void {
            if (++$turns < 1000) { // far more than the 50 turns allowed, yet a regression cannot hang
                $this->loop->defer($again);
            }
        };
        $this->loop->defer($again);

        $this->expectException(\RuntimeException::class);
        $this->expectExceptionMessage('did not become idle');

        $this->loop->runUntilIdle(50);
    }

    public function testNextTimerDueSkipsCancelledTimers(): void
    {
        $early = $this->loop->delay(1.0, static function (): void {});
        $this->loop->delay(2.0, static function (): void {});
        $this->loop->cancel($early);

        self::assertSame(2.0, $this->loop->nextTimerDue());
    }

    public function testAThrowingTimerGoesToTheErrorHandlerAndTheLoopGoesOn(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        $boom = new \RuntimeException('timer failed');
        $this->loop->delay(1.0, static function () use ($boom): void {
            throw $boom;
        });
        $later = false;
        $this->loop->delay(1.0, static function () use (&$later): void {
            $later = true;
        });

        $this->loop->run();

        self::assertSame([$boom], $errors);
        self::assertTrue($later);
    }

    public function testAThrowingDeferredCallbackGoesToTheErrorHandler(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        $boom = new \LogicException('deferred failed');
        $this->loop->defer(static function () use ($boom): void {
            throw $boom;
        });
        $after = false;
        $this->loop->defer(static function () use (&$after): void {
            $after = true;
        });

        $this->loop->run();

        self::assertSame([$boom], $errors);
        self::assertTrue($after);
    }

    public function testWithoutAnErrorHandlerRunRethrows(): void
    {
        $boom = new \RuntimeException('nobody handles this');
        $this->loop->delay(1.0, static function () use ($boom): void {
            throw $boom;
        });

        try {
            $this->loop->run();
            self::fail('run() should have rethrown');
        } catch (\RuntimeException $e) {
            self::assertSame($boom, $e);
        }
    }

    public function testRemovingTheErrorHandlerMakesRunRethrowAgain(): void
    {
        $this->loop->setErrorHandler(static function (): void {});
        $this->loop->setErrorHandler(null);
        $this->loop->defer(static function (): void {
            throw new \DomainException('rethrown');
        });

        $this->expectException(\DomainException::class);

        $this->loop->run();
    }

    public function testDeferredCallbacksQueuedBehindARethrownErrorStillRun(): void
    {
        $this->loop->defer(static function (): void {
            throw new \RuntimeException('first fails');
        });
        /** @var list<string> $log */
        $log = [];
        $this->loop->defer(static function () use (&$log): void {
            $log[] = 'second';
        });
        $this->loop->defer(static function () use (&$log): void {
            $log[] = 'third';
        });

        try {
            $this->loop->run();
            self::fail('run() should have rethrown');
        } catch (\RuntimeException) {
        }
        self::assertSame([], $log);
        $this->loop->run();

        self::assertSame(['second', 'third'], $log);
    }

    /**
     * @return array{resource, resource}
     */
    private static function socketPair(): array
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);

        return [$pair[0], $pair[1]];
    }
}
