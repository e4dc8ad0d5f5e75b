<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\CompositeCancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Loop;
use Nexus\Runtime\TimeoutCancellation;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

final class CancellationTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
    }

    public function testADeferredCancellationCallsItsSubscribersOnceWithTheReason(): void
    {
        $source = new DeferredCancellation($this->loop);
        $cancellation = $source->cancellation();
        $seen = [];
        $cancellation->subscribe(static function (CancelledException $e) use (&$seen): void {
            $seen[] = $e;
        });
        $dropped = $cancellation->subscribe(static function () use (&$seen): void {
            $seen[] = 'unsubscribed, never called';
        });
        $cancellation->unsubscribe($dropped);
        self::assertFalse($cancellation->isRequested());
        $cancellation->throwIfRequested();

        $reason = new \DomainException('the client went away');
        $source->cancel($reason);
        $source->cancel(new \LogicException('a second cancel changes nothing'));

        self::assertTrue($source->isCancelled());
        self::assertCount(1, $seen);
        self::assertInstanceOf(CancelledException::class, $seen[0]);
        self::assertSame($reason, $seen[0]->getPrevious());
        $this->expectExceptionObject($seen[0]);
        $cancellation->throwIfRequested();
    }

    public function testSubscribingToARequestedCancellationCallsAtOnce(): void
    {
        $source = new DeferredCancellation($this->loop);
        $source->cancel();
        $called = false;
        $source->cancellation()->subscribe(static function () use (&$called): void {
            $called = true;
        });
        self::assertTrue($called);
    }

    public function testATimeoutCancellationIsRequestedAfterItsTimeWithATimeoutAsReason(): void
    {
        $cancellation = new TimeoutCancellation($this->loop, 2.0, 'Waiting for the payment API');
        $this->loop->delay(1.0, static function (): void {});
        $this->loop->run();
        self::assertFalse($cancellation->isRequested(), 'not before its time');
        $this->loop->delay(1.5, static function (): void {});
        $this->loop->run();
        self::assertTrue($cancellation->isRequested());
        try {
            $cancellation->throwIfRequested();
            self::fail('throwIfRequested() should have thrown');
        } catch (CancelledException $e) {
            self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
            self::assertStringContainsString('Waiting for the payment API after 2.000 s', $e->getMessage());
        }
    }

    public function testADroppedTimeoutCancellationRemovesItsTimer(): void
    {
        $cancellation = new TimeoutCancellation($this->loop, 5.0);
        self::assertNotNull($this->loop->nextTimerDue());
        unset($cancellation);
        self::assertNull($this->loop->nextTimerDue());
    }

    public function testACompositeIsRequestedByTheFirstOfItsParts(): void
    {
        $a = new DeferredCancellation($this->loop);
        $b = new DeferredCancellation($this->loop);
        $composite = new CompositeCancellation($a->cancellation(), $b->cancellation());
        self::assertFalse($composite->isRequested());
        $b->cancel(new \RuntimeException('b'));
        self::assertTrue($composite->isRequested());
        try {
            $composite->throwIfRequested();
            self::fail('throwIfRequested() should have thrown');
        } catch (CancelledException $e) {
            self::assertSame('b', $e->getPrevious()?->getMessage());
        }
    }

    public function testAwaitInAFiberEndsWithTheCancellationAndLeavesTheFuturePending(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $source = new DeferredCancellation($this->loop);
        $outcome = null;
        $this->loop->async(static function () use ($deferred, $source, &$outcome): void {
            try {
                $deferred->future()->await(null, $source->cancellation());
            } catch (CancelledException $e) {
                $outcome = $e;
            }
        })->ignore();
        $this->loop->runUntilIdle();
        self::assertNull($outcome, 'still waiting');

        $source->cancel();
        $this->loop->runUntilIdle();

        self::assertInstanceOf(CancelledException::class, $outcome);
        self::assertFalse($deferred->future()->isSettled());
        $deferred->resolve(1); // the waiter that gave up left nothing behind to resume
        $this->loop->runUntilIdle();
    }

    public function testAwaitFromTopLevelEndsWithTheCancellation(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $cancellation = new TimeoutCancellation($this->loop, 1.0);
        $keepAlive = $this->loop->delay(10.0, static function (): void {});

        try {
            $deferred->future()->await(null, $cancellation);
            self::fail('await() should have been cancelled');
        } catch (CancelledException $e) {
            self::assertInstanceOf(TimeoutException::class, $e->getPrevious());
        }
        $this->loop->cancel($keepAlive);
        self::assertEqualsWithDelta(1.0, $this->clock->now(), 0.001);
    }

    public function testAnAlreadyRequestedCancellationThrowsBeforeWaiting(): void
    {
        $source = new DeferredCancellation($this->loop);
        $source->cancel();
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $this->expectException(CancelledException::class);
        $deferred->future()->await(null, $source->cancellation());
    }

    public function testTheSchedulersCancellationEndsEveryWaitOfTheTaskRunningUnderIt(): void
    {
        $scheduler = $this->loop->scheduler();
        $source = new DeferredCancellation($this->loop);
        /** @var Deferred<int> $first */
        $first = new Deferred($this->loop);
        /** @var Deferred<int> $other */
        $other = new Deferred($this->loop);
        $log = [];
        $loop = $this->loop;
        $scheduler->schedule(new ClosureRunnable(static function () use ($scheduler, $loop, $source, $first, &$log): void {
            $scheduler->setCancellation($source->cancellation());
            try {
                $log[] = 'first: ' . $first->future()->await();
                try {
                    $first->future()->await(); // settled: no wait, no cancellation
                    (new Deferred($loop))->future()->await();
                } catch (CancelledException) {
                    $log[] = 'cancelled';
                }
            } finally {
                $scheduler->setCancellation(null);
            }
        }));
        // A task that runs meanwhile is not under the first task's cancellation.
        $scheduler->schedule(new ClosureRunnable(static function () use ($scheduler, $other, &$log): void {
            $log[] = 'other sees ' . ($scheduler->cancellation() === null ? 'none' : 'a cancellation');
            $log[] = 'other: ' . $other->future()->await();
        }));
        $this->loop->runUntilIdle();
        $first->resolve(1);
        $this->loop->runUntilIdle();
        $source->cancel();
        $this->loop->runUntilIdle();
        $other->resolve(2);
        $this->loop->runUntilIdle();

        self::assertSame(['other sees none', 'first: 1', 'cancelled', 'other: 2'], $log);
        self::assertNull($scheduler->cancellation());
    }
    public function testARunnableThatIsACancellationRunsUnderItselfAcrossItsWaits(): void
    {
        $scheduler = $this->loop->scheduler();
        $loop = $this->loop;
        /** @var Deferred<int> $first */
        $first = new Deferred($loop);
        $log = [];
        $limited = new CancellableRunnable($loop, static function () use ($loop, $first, $scheduler, &$log): void {
            $log[] = 'first: ' . $first->future()->await();
            try {
                (new Deferred($loop))->future()->await();
            } catch (CancelledException $e) {
                $log[] = 'cancelled: ' . $e->getMessage();
            }
            $log[] = 'under ' . ($scheduler->cancellation() === null ? 'none' : 'itself');
        });
        $scheduler->schedule($limited);
        $scheduler->schedule(new ClosureRunnable(static function () use ($scheduler, &$log): void {
            $log[] = 'an actor-like runnable is under ' . ($scheduler->cancellation() === null ? 'none' : 'a cancellation');
        }));
        $this->loop->runUntilIdle();
        $first->resolve(1);
        $this->loop->runUntilIdle();
        $limited->source->cancel(new \RuntimeException('time is up'));
        $this->loop->runUntilIdle();

        self::assertSame([
            'an actor-like runnable is under none',
            'first: 1',
            'cancelled: The operation was cancelled: time is up',
            'under itself',
        ], $log);
        self::assertNull($scheduler->cancellation());
    }
}
