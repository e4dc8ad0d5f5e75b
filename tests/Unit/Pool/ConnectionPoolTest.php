<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Pool;

use Nexus\Pool\CallbackConnector;
use Nexus\Pool\ConnectionPool;
use Nexus\Pool\Exception\InvalidPoolOptionsException;
use Nexus\Pool\Exception\PoolClosedException;
use Nexus\Pool\Exception\PoolTimeoutException;
use Nexus\Pool\Exception\PoolWaitQueueFullException;
use Nexus\Pool\PoolOptions;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * The generic pool against a fake connector on a loop with a virtual clock: timeouts are exact and
 * no test waits for real time.
 */
final class ConnectionPoolTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private FakeConnector $connector;
    /** @var list<\Throwable> */
    private array $loopErrors = [];

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            $this->loopErrors[] = $e;
        });
        $this->connector = new FakeConnector($this->loop);
    }

    public function testOpensOnDemandReusesTheMostRecentlyUsedAndNeverExceedsMaxSize(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 2));
        $a = $pool->acquire()->await();
        $b = $pool->acquire()->await();
        $third = $pool->acquire();
        self::assertFalse($third->isSettled(), 'a third caller waits');
        self::assertSame(2, $this->connector->opened);

        $pool->release($a);
        self::assertSame($a, $third->await(), 'the waiter gets the released connection');
        $pool->release($a);
        $pool->release($b);
        self::assertSame($b, $pool->acquire()->await(), 'the most recently used comes first');
        self::assertSame(2, $pool->size());
        self::assertSame(1, $pool->idleCount());
        self::assertSame(1, $pool->borrowedCount());
        self::assertSame([], $this->loopErrors);
    }

    public function testWaitersAreServedFirstComeFirstServed(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        $held = $pool->acquire()->await();
        $order = [];
        foreach ([1, 2, 3] as $n) {
            $pool->acquire()->onSettle(static function (?\Throwable $e, mixed $c) use ($n, &$order, $pool): void {
                $order[] = $n;
                \assert($c instanceof FakeConnection);
                $pool->release($c);
            });
        }
        self::assertSame(3, $pool->waitingCount());
        $pool->release($held);

        self::assertSame([1, 2, 3], $order);
        self::assertSame(0, $pool->waitingCount());
        self::assertSame(1, $pool->idleCount());
    }

    public function testAWaiterTimesOutWithTheNameOfThePoolAndTheWait(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1, acquireTimeout: 2.5), 'orders pool');
        $pool->acquire()->await();
        $started = $this->clock->now();

        try {
            $pool->acquire()->await();
            self::fail('nobody gives the connection back');
        } catch (PoolTimeoutException $e) {
            self::assertStringContainsString('orders pool', $e->getMessage());
            self::assertStringContainsString('within 2.500 s', $e->getMessage());
            self::assertStringContainsString('1 of at most 1 open', $e->getMessage());
        }
        self::assertEqualsWithDelta(2.5, $this->clock->now() - $started, 1e-9);
        self::assertSame(0, $pool->waitingCount());
    }

    public function testTheWaitQueueIsBounded(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1, maxWaiters: 2), 'small pool');
        $pool->acquire()->await();
        $first = $pool->acquire();
        $second = $pool->acquire();
        $third = $pool->acquire();

        self::assertTrue($third->isRejected());
        try {
            $third->await();
        } catch (PoolWaitQueueFullException $e) {
            self::assertStringContainsString('small pool', $e->getMessage());
            self::assertStringContainsString('2 callers already wait', $e->getMessage());
        }
        self::assertFalse($first->isSettled());
        self::assertFalse($second->isSettled());
        self::assertSame(2, $pool->waitingCount());
    }

    public function testABrokenIdleConnectionIsNeverHandedOutAndItsSlotIsFreed(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        $first = $pool->acquire()->await();
        $pool->release($first);
        $first->broken = true;

        $second = $pool->acquire()->await();

        self::assertNotSame($first, $second);
        self::assertTrue($first->closed, 'the broken one was closed');
        self::assertSame(1, $pool->size());
    }

    public function testAConnectionThatBrokeInUseIsClosedOnReleaseAndTheWaiterGetsANewOne(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        $first = $pool->acquire()->await();
        $waiter = $pool->acquire();
        $first->broken = true;
        $pool->release($first);

        $second = $waiter->await();
        self::assertNotSame($first, $second);
        self::assertTrue($first->closed);
        self::assertSame(1, $pool->size());
    }

    public function testDiscardClosesAndFreesTheSlot(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        $first = $pool->acquire()->await();
        $waiter = $pool->acquire();
        $pool->discard($first);

        self::assertTrue($first->closed);
        self::assertNotSame($first, $waiter->await());
        self::assertSame(1, $pool->size());
    }

    public function testAConnectionIsResetBeforeAnyoneElseGetsItAndAFailedResetClosesIt(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        $connection = $pool->acquire()->await();
        $waiter = $pool->acquire();
        $connection->dirty = true;
        $pool->release($connection);
        self::assertFalse($waiter->isSettled(), 'nobody gets it while it is being reset');
        self::assertSame(1, $pool->size());

        [$resetting, $reset] = $this->connector->resets[0];
        self::assertSame($connection, $resetting);
        $connection->dirty = false;
        $reset->resolve(null);
        self::assertSame($connection, $waiter->await());

        $connection->dirty = true;
        $pool->release($connection);
        $this->connector->resets[1][1]->reject(new \RuntimeException('ROLLBACK failed'));
        self::assertTrue($connection->closed);
        self::assertSame(0, $pool->size());
        self::assertNotSame($connection, $pool->acquire()->await());
    }

    public function testAFailedConnectFailsTheOldestWaiterAndEveryOtherWaiterGetsItsOwnAttempt(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 2));
        $this->connector->manual = true;
        $waiters = [$pool->acquire(), $pool->acquire(), $pool->acquire()];
        self::assertCount(2, $this->connector->pending, 'maxSize connects at once');

        array_shift($this->connector->pending)?->reject(new \RuntimeException('connection refused'));
        self::assertTrue($waiters[0]->isRejected(), 'the oldest waiter learns why');
        self::assertCount(2, $this->connector->pending, 'a new attempt for the callers still waiting');

        $this->connector->completeOne();
        $this->connector->completeOne();
        self::assertInstanceOf(FakeConnection::class, $waiters[1]->await());
        self::assertInstanceOf(FakeConnection::class, $waiters[2]->await());
        self::assertSame(2, $pool->size());

        try {
            $waiters[0]->await();
            self::fail('the first waiter failed');
        } catch (\RuntimeException $e) {
            self::assertSame('connection refused', $e->getMessage());
        }
    }

    public function testWhenTheServerIsDownEveryWaiterFailsAndTheSizeReturnsToZero(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 3));
        $this->connector->failWith = new \RuntimeException('down');
        $futures = [];
        for ($i = 0; $i < 10; ++$i) {
            $futures[] = $pool->acquire();
        }
        foreach ($futures as $future) {
            self::assertTrue($future->isRejected());
            $future->ignore();
        }
        self::assertSame(0, $pool->size());
        self::assertSame(0, $pool->waitingCount());
    }

    public function testIdleConnectionsAreClosedAfterTheIdleTimeoutButMinIdleAreKept(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 4, idleTimeout: 10.0, minIdle: 1));
        $this->runUntil(static fn(): bool => $pool->idleCount() === 1);
        $connections = [];
        for ($i = 0; $i < 4; ++$i) {
            $connections[] = $pool->acquire()->await();
        }
        foreach ($connections as $connection) {
            $pool->release($connection);
        }
        self::assertSame(4, $pool->idleCount());
        $released = $this->clock->now();

        $this->runUntil(static fn(): bool => $pool->idleCount() === 1);

        self::assertGreaterThanOrEqual(10.0, $this->clock->now() - $released);
        self::assertLessThan(10.1, $this->clock->now() - $released);
        self::assertSame(1, $pool->size());
        self::assertCount(3, $this->connector->closed);
        self::assertFalse($this->loop->isAlive(), 'an idle pool does not keep the loop running');
    }

    public function testMinIdleConnectionsAreOpenedInTheBackgroundAndRetriedAfterAFailure(): void
    {
        $this->connector->failWith = new \RuntimeException('not yet');
        $pool = $this->pool(new PoolOptions(maxSize: 5, minIdle: 2));
        self::assertSame(0, $pool->size());
        self::assertCount(1, $this->loopErrors, 'the failed background connect is reported');

        $this->connector->failWith = null;
        $this->runFor(1.0);
        self::assertSame(2, $pool->idleCount());

        $pool->acquire()->await();
        self::assertSame(2, $pool->idleCount(), 'one more is opened to keep two idle');
        self::assertSame(3, $pool->size());
    }

    public function testMaxLifetimeClosesIdleConnectionsAndConnectionsComingBack(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 2, idleTimeout: null, maxLifetime: 30.0));
        $kept = $pool->acquire()->await();
        $idle = $pool->acquire()->await();
        $pool->release($idle);

        $this->runUntil(static fn(): bool => $idle->closed);
        self::assertEqualsWithDelta(30.0, $this->clock->now(), 0.01);
        self::assertFalse($kept->closed, 'a lent connection is never closed under its borrower');

        $pool->release($kept);
        self::assertTrue($kept->closed);
        self::assertSame(0, $pool->size());
    }

    public function testCloseFailsWaitersAndClosesEveryConnection(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 2), 'closing pool');
        $lent = $pool->acquire()->await();
        $idle = $pool->acquire()->await();
        $pool->release($idle);
        $this->connector->manual = true;
        $pool->discard($pool->acquire()->await());
        $waiter = $pool->acquire();
        self::assertCount(1, $this->connector->pending);

        $pool->close();

        try {
            $waiter->await();
            self::fail('the waiter must fail');
        } catch (PoolClosedException $e) {
            self::assertStringContainsString('closing pool was closed while this caller waited', $e->getMessage());
        }
        self::assertTrue($idle->closed);
        $late = $this->connector->completeOne();
        self::assertTrue($late->closed, 'a connect that completes after close() is closed');
        $pool->release($lent);
        self::assertTrue($lent->closed);
        self::assertSame(0, $pool->size());
        $this->expectException(PoolClosedException::class);
        $pool->acquire()->await();
    }

    public function testACancelledWaitLeavesNothingBehind(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        $held = $pool->acquire()->await();
        $source = new DeferredCancellation($this->loop);
        $waiter = $pool->acquire($source->cancellation());
        $source->cancel(new \RuntimeException('client went away'));

        self::assertTrue($waiter->isRejected());
        try {
            $waiter->await();
        } catch (CancelledException $e) {
            self::assertStringContainsString('client went away', $e->getMessage());
        }
        self::assertSame(0, $pool->waitingCount());
        $pool->release($held);
        self::assertSame(1, $pool->idleCount(), 'the connection went idle, not to the cancelled caller');
        self::assertFalse($this->loop->isAlive(), 'no acquire timer is left');
    }

    public function testAnAwaitThatGivesUpHandsALateConnectionBack(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1, acquireTimeout: 60.0));
        $held = $pool->acquire()->await();
        // The await ends through the task's cancellation, which the acquire itself was not given.
        $outcome = $this->underTaskCancelledAfterOneSecond(static function () use ($pool): string {
            $pool->acquireAndAwait();

            return 'got one';
        });
        self::assertSame('cancelled', $outcome->await());
        self::assertSame(1, $pool->waitingCount());

        $pool->release($held);
        self::assertSame(1, $pool->idleCount(), 'the connection the abandoned wait received came back');
        self::assertSame(0, $pool->borrowedCount());
    }

    public function testTheCancellationOfTheRunningTaskEndsTheWaitToo(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1, acquireTimeout: 60.0));
        $held = $pool->acquire()->await();
        $outcome = $this->underTaskCancelledAfterOneSecond(static fn(): string => $pool->withConnection(static fn(): string => 'ran'));

        self::assertSame('cancelled', $outcome->await());
        self::assertSame(0, $pool->waitingCount());
        $pool->release($held);
        self::assertSame(1, $pool->idleCount());
    }

    public function testWithConnectionGivesTheConnectionBackWhenTheWorkThrows(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1));
        try {
            $pool->withConnection(static function (): never {
                throw new \DomainException('work failed');
            });
        } catch (\DomainException) {
        }
        self::assertSame(1, $pool->idleCount());
        self::assertSame(0, $pool->borrowedCount());
    }

    public function testGivingBackAConnectionTwiceIsRefused(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1), 'strict pool');
        $connection = $pool->acquire()->await();
        $pool->release($connection);

        $this->expectException(\LogicException::class);
        $this->expectExceptionMessage('strict pool that it had not lent out');
        $pool->release($connection);
    }

    public function testTenThousandWaitersServedOneAfterAnotherDoNotOverflowTheStack(): void
    {
        $pool = $this->pool(new PoolOptions(maxSize: 1, maxWaiters: 10_000));
        $held = $pool->acquire()->await();
        $served = 0;
        for ($i = 0; $i < 10_000; ++$i) {
            $pool->acquire()->onSettle(static function (?\Throwable $e, mixed $c) use ($pool, &$served): void {
                \assert($c instanceof FakeConnection);
                ++$served;
                $pool->release($c);
            });
        }
        $pool->release($held);

        self::assertSame(10_000, $served);
        self::assertSame(1, $pool->size());
        self::assertSame(0, $pool->waitingCount());
    }

    public function testACallbackConnectorWorksFromClosures(): void
    {
        $closed = [];
        $pool = new ConnectionPool($this->loop, new CallbackConnector(
            connect: fn(): Future => Future::fulfilled($this->loop, new FakeConnection(1)),
            isUsable: static fn(FakeConnection $c): bool => !$c->broken,
            close: static function (FakeConnection $c) use (&$closed): void {
                $closed[] = $c;
            },
        ));
        $connection = $pool->acquire()->await();
        $connection->broken = true;
        $pool->release($connection);

        self::assertSame([$connection], $closed);
        self::assertSame(0, $pool->size());
    }

    public function testOptionsAreChecked(): void
    {
        $this->expectException(InvalidPoolOptionsException::class);
        $this->expectExceptionMessage('minIdle must be between 0 and maxSize (2), got 3');
        new PoolOptions(maxSize: 2, minIdle: 3);
    }

    public function testThePoolsOwnFailuresCanBeMappedToTheKindsAWrapperPromises(): void
    {
        $pool = new ConnectionPool(
            $this->loop,
            $this->connector,
            new PoolOptions(maxSize: 1, acquireTimeout: 1.0),
            'mapped pool',
            mapError: static fn(\Throwable $e): \Throwable => new \DomainException('mapped: ' . $e->getMessage(), 0, $e),
        );
        $pool->acquire()->await();
        try {
            $pool->acquire()->await();
            self::fail('times out');
        } catch (\DomainException $e) {
            self::assertStringStartsWith('mapped: No connection of the mapped pool', $e->getMessage());
            self::assertInstanceOf(PoolTimeoutException::class, $e->getPrevious());
        }
        $pool->close();
        $this->expectException(\DomainException::class);
        $pool->acquire()->await();
    }

    /**
     * Runs $work in a fiber whose task cancellation (an HTTP handler's time limit, say) is
     * requested after one second: the future says 'cancelled' if the work ended with it.
     *
     * @param \Closure(): string $work
     *
     * @return Future<string>
     */
    private function underTaskCancelledAfterOneSecond(\Closure $work): Future
    {
        $source = new DeferredCancellation($this->loop);
        $scheduler = $this->loop->scheduler();
        $this->loop->delay(1.0, static function () use ($source): void {
            $source->cancel();
        });

        return $this->loop->async(static function () use ($work, $source, $scheduler): string {
            $scheduler->setCancellation($source->cancellation());
            try {
                return $work();
            } catch (CancelledException) {
                return 'cancelled';
            } finally {
                $scheduler->setCancellation(null);
            }
        });
    }

    /**
     * @return ConnectionPool<FakeConnection>
     */
    private function pool(PoolOptions $options, string $name = 'test pool'): ConnectionPool
    {
        return new ConnectionPool($this->loop, $this->connector, $options, $name);
    }

    /**
     * @param \Closure(): bool $condition
     */
    private function runUntil(\Closure $condition): void
    {
        $deadline = $this->clock->now() + 3600.0;
        while (!$condition()) {
            self::assertLessThan($deadline, $this->clock->now(), 'the condition did not hold within an hour of virtual time');
            $step = $this->loop->delay(0.05, static function (): void {});
            $this->loop->tick();
            $this->loop->cancel($step);
        }
    }

    private function runFor(float $seconds): void
    {
        $until = $this->clock->now() + $seconds;
        $this->runUntil(fn(): bool => $this->clock->now() >= $until);
    }
}
