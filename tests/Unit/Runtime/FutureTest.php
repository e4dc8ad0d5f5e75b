<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\DeadlockException;
use Nexus\Runtime\Exception\FutureAlreadySettledException;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class FutureTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
    }

    public function testResolveFulfilsTheFuture(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $future = $deferred->future();
        self::assertFalse($future->isSettled());
        self::assertFalse($deferred->isSettled());

        $deferred->resolve('value');

        self::assertTrue($future->isSettled());
        self::assertTrue($future->isFulfilled());
        self::assertFalse($future->isRejected());
        self::assertTrue($deferred->isSettled());
        self::assertSame('value', $future->await());
    }

    public function testRejectMakesAwaitThrowThatVeryError(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $error = new \DomainException('failed');

        $deferred->reject($error);

        self::assertTrue($deferred->future()->isRejected());
        self::assertFalse($deferred->future()->isFulfilled());
        try {
            $deferred->future()->await();
            self::fail('await() should have thrown');
        } catch (\DomainException $e) {
            self::assertSame($error, $e);
        }
    }

    public function testReadyMadeFutures(): void
    {
        $error = new \RuntimeException('no');

        self::assertSame(42, Future::fulfilled($this->loop, 42)->await());
        $rejected = Future::rejected($this->loop, $error);
        self::assertTrue($rejected->isRejected());
        $this->expectExceptionObject($error);
        $rejected->await();
    }

    public function testResolvingTwiceThrowsAndKeepsTheFirstValue(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $deferred->resolve(1);

        try {
            $deferred->resolve(2);
            self::fail('a second resolve() should throw');
        } catch (FutureAlreadySettledException) {
        }

        self::assertSame(1, $deferred->future()->await());
    }

    public function testRejectingASettledFutureThrowsWithTheIgnoredErrorAsPrevious(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $deferred->resolve(1);
        $ignored = new \RuntimeException('too late');

        try {
            $deferred->reject($ignored);
            self::fail('reject() of a settled future should throw');
        } catch (FutureAlreadySettledException $e) {
            self::assertSame($ignored, $e->getPrevious());
        }
        self::assertTrue($deferred->future()->isFulfilled());
    }

    public function testTryResolveAndTryRejectReportWhetherTheySettledTheFuture(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);

        self::assertTrue($deferred->tryResolve('first'));
        self::assertFalse($deferred->tryResolve('second'));
        self::assertFalse($deferred->tryReject(new \RuntimeException('ignored')));
        self::assertSame('first', $deferred->future()->await());

        /** @var Deferred<string> $rejected */
        $rejected = new Deferred($this->loop);
        self::assertTrue($rejected->tryReject(new \RuntimeException('first')));
        self::assertFalse($rejected->tryResolve('ignored'));
        self::assertTrue($rejected->future()->isRejected());
    }

    public function testOnSettleOfASettledFutureRunsAtOnce(): void
    {
        /** @var list<array{?\Throwable, mixed}> $calls */
        $calls = [];
        $error = new \RuntimeException('no');

        Future::fulfilled($this->loop, 'yes')->onSettle(static function (?\Throwable $e, mixed $value) use (&$calls): void {
            $calls[] = [$e, $value];
        });
        Future::rejected($this->loop, $error)->onSettle(static function (?\Throwable $e, mixed $value) use (&$calls): void {
            $calls[] = [$e, $value];
        });

        self::assertSame([[null, 'yes'], [$error, null]], $calls);
    }

    public function testOnSettleCallbacksRunInOrderWhenTheFutureSettles(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        /** @var list<string> $calls */
        $calls = [];
        foreach (['a', 'b', 'c'] as $name) {
            $deferred->future()->onSettle(static function (?\Throwable $e, mixed $value) use (&$calls, $name): void {
                $calls[] = "{$name}:" . var_export($value, true);
            });
        }
        self::assertSame([], $calls);

        $deferred->resolve(7);

        self::assertSame(['a:7', 'b:7', 'c:7'], $calls);
    }

    public function testThrowingSettleCallbacksGoToTheErrorHandlerAndTheOthersStillRun(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $first = new \RuntimeException('pending callback failed');
        $deferred->future()->onSettle(static function () use ($first): void {
            throw $first;
        });
        $ran = false;
        $deferred->future()->onSettle(static function () use (&$ran): void {
            $ran = true;
        });

        $deferred->resolve(1);

        $second = new \RuntimeException('settled callback failed');
        $deferred->future()->onSettle(static function () use ($second): void {
            throw $second;
        });

        self::assertTrue($ran);
        self::assertSame([$first, $second], $errors);
    }

    public function testAwaitFromTopLevelRunsTheLoopUntilTheFutureSettles(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $sideWork = false;
        $this->loop->delay(1.0, static function () use (&$sideWork): void {
            $sideWork = true;
        });
        $this->loop->delay(2.0, static function () use ($deferred): void {
            $deferred->resolve('done');
        });
        $this->loop->delay(10.0, static function (): void {});

        self::assertSame('done', $deferred->future()->await());
        self::assertTrue($sideWork, 'the loop ran other work while waiting');
        self::assertSame(2.0, $this->clock->now(), 'await() returned as soon as the future settled');
    }

    public function testTopLevelAwaitTimesOutAndLeavesTheFuturePending(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay(5.0, static function () use ($deferred): void {
            $deferred->resolve('late');
        });

        try {
            $deferred->future()->await(1.5);
            self::fail('await() should have timed out');
        } catch (TimeoutException $e) {
            self::assertStringContainsString('1.500 s', $e->getMessage());
        }

        self::assertSame(1.5, $this->clock->now());
        self::assertFalse($deferred->future()->isSettled());
        self::assertSame('late', $deferred->future()->await(), 'the future can still be awaited');
        self::assertSame(5.0, $this->clock->now());
    }

    public function testATopLevelAwaitThatSucceedsCancelsItsTimeoutTimer(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay(1.0, static function () use ($deferred): void {
            $deferred->resolve(3);
        });

        self::assertSame(3, $deferred->future()->await(60.0));
        self::assertFalse($this->loop->isAlive(), 'no timeout timer is left behind');
    }

    public function testTopLevelAwaitWithNothingOnTheLoopThrowsDeadlock(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);

        $this->expectException(DeadlockException::class);
        $this->expectExceptionMessage('await() would wait forever: nothing left on the loop');

        $deferred->future()->await();
    }

    public function testAnUnreferencedTimerCannotPreventADeadlock(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $id = $this->loop->delay(1.0, static function () use ($deferred): void {
            $deferred->resolve(1);
        });
        $this->loop->unreference($id);

        $this->expectException(DeadlockException::class);

        $deferred->future()->await();
    }

    public function testAsyncRunsItsCallbackOnALaterTurnInAFiber(): void
    {
        $inFiber = null;
        $future = $this->loop->async(static function () use (&$inFiber): string {
            $inFiber = \Fiber::getCurrent() !== null;

            return 'result';
        });
        self::assertNull($inFiber, 'async() does not run the callback at once');

        self::assertSame('result', $future->await());
        self::assertTrue($inFiber);
    }

    public function testAnExceptionInAnAsyncCallbackRejectsItsFuture(): void
    {
        $error = new \LogicException('inside async');
        $future = $this->loop->async(static function () use ($error): never {
            throw $error;
        });

        $this->loop->run();

        self::assertTrue($future->isRejected());
        $this->expectExceptionObject($error);
        $future->await();
    }

    public function testAwaitInsideAFiberSuspendsOnlyThatFiber(): void
    {
        /** @var list<string> $log */
        $log = [];
        $slow = $this->loop->async(function () use (&$log): string {
            $log[] = 'slow: start';
            $this->waitOnTheVirtualClock(2.0);
            $log[] = 'slow: end at ' . $this->clock->now();

            return 'slow';
        });
        $fast = $this->loop->async(function () use (&$log): string {
            $log[] = 'fast: start';
            $this->waitOnTheVirtualClock(0.5);
            $log[] = 'fast: step at ' . $this->clock->now();
            $this->waitOnTheVirtualClock(0.5);
            $log[] = 'fast: end at ' . $this->clock->now();

            return 'fast';
        });

        self::assertSame('slow', $slow->await());
        self::assertSame('fast', $fast->await());
        self::assertSame([
            'slow: start',
            'fast: start',
            'fast: step at 0.5',
            'fast: end at 1',
            'slow: end at 2',
        ], $log);
    }

    public function testAwaitInsideAFiberTimesOutAndLeavesTheFuturePending(): void
    {
        /** @var Deferred<string> $never */
        $never = new Deferred($this->loop);
        $attempt = $this->loop->async(static fn(): string => $never->future()->await(0.5));

        $this->loop->run();

        self::assertTrue($attempt->isRejected());
        self::assertSame(0.5, $this->clock->now());
        self::assertFalse($never->future()->isSettled());
        $this->expectException(TimeoutException::class);
        $this->expectExceptionMessage('0.500 s');
        $attempt->await();
    }

    public function testAnAwaitInsideAFiberThatSucceedsCancelsItsTimeoutTimer(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay(1.0, static function () use ($deferred): void {
            $deferred->resolve('in time');
        });
        $result = $this->loop->async(static fn(): string => $deferred->future()->await(30.0));

        $this->loop->run();

        self::assertSame('in time', $result->await());
        self::assertSame(1.0, $this->clock->now(), 'run() did not wait for the 30 s timeout timer');
    }

    public function testAFiberAwaitingARejectedFutureGetsTheError(): void
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $error = new \RuntimeException('rejected later');
        $this->loop->delay(1.0, static function () use ($deferred, $error): void {
            $deferred->reject($error);
        });
        $caught = $this->loop->async(static function () use ($deferred): ?\Throwable {
            try {
                $deferred->future()->await();
            } catch (\RuntimeException $e) {
                return $e;
            }

            return null;
        });

        self::assertSame($error, $caught->await());
    }

    public function testTopLevelAwaitOnAFiberThatWaitsForeverThrowsDeadlock(): void
    {
        /** @var Deferred<int> $never */
        $never = new Deferred($this->loop);
        $stuck = $this->loop->async(static fn(): int => $never->future()->await());

        $this->expectException(DeadlockException::class);

        $stuck->await();
    }

    /**
     * Waits $seconds of virtual time in the calling fiber: the loop's VirtualClock jumps to the
     * timer, so no real time passes.
     */
    private function waitOnTheVirtualClock(float $seconds): void
    {
        /** @var Deferred<null> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay($seconds, static function () use ($deferred): void {
            $deferred->resolve(null);
        });
        $deferred->future()->await();
    }
}
