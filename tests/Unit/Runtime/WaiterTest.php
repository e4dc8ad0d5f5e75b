<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * A fiber's waits share one Waiter (Scheduler::waiterFor()): each wait is armed and ended on its
 * own, a wait ended by an exception thrown into the fiber leaves nothing behind, and the waiter
 * does not keep its fiber alive between waits.
 */
final class WaiterTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
    }

    public function testAFiberKeepsOneWaiterForAllItsWaits(): void
    {
        $scheduler = $this->loop->scheduler();
        $results = $this->loop->async(function () use ($scheduler): array {
            $fiber = \Fiber::getCurrent();
            \assert($fiber !== null);
            $waiter = $scheduler->waiterFor($fiber);
            $values = [];
            foreach ([1.0, 0.5, 2.0] as $seconds) {
                $values[] = $this->after($seconds, $seconds);
                self::assertSame($waiter, $scheduler->waiterFor($fiber));
                self::assertFalse($waiter->waiting, 'between waits it is not armed');
            }

            return $values;
        });

        self::assertSame([1.0, 0.5, 2.0], $results->await());
        self::assertSame(3.5, $this->clock->now());
    }

    public function testAnExceptionThrownIntoAWaitingFiberEndsTheWaitAndLeavesNothingBehind(): void
    {
        /** @var Deferred<string> $never */
        $never = new Deferred($this->loop);
        $source = new DeferredCancellation($this->loop);
        $fiber = new \Fiber(static fn(): string => $never->future()->await(30.0, $source->cancellation()));
        $fiber->start();
        $stop = new \RuntimeException('stop waiting');

        try {
            $fiber->throw($stop);
            self::fail('The exception should have come out of the wait.');
        } catch (\RuntimeException $e) {
            self::assertSame($stop, $e);
        }
        self::assertTrue($fiber->isTerminated());

        $this->loop->run();
        self::assertSame(0.0, $this->clock->now(), 'its 30 s timer was cancelled');
        $never->resolve('late');
        $source->cancel(); // nobody subscribed is left to call
        $this->loop->run();
        self::assertSame(0.0, $this->clock->now());
    }

    public function testACancelledWaitEndsWithTheCancellationAndTheNextWaitOfTheFiberWorks(): void
    {
        $source = new DeferredCancellation($this->loop);
        $this->loop->delay(1.0, static function () use ($source): void {
            $source->cancel();
        });
        /** @var Deferred<string> $never */
        $never = new Deferred($this->loop);
        $outcome = $this->loop->async(function () use ($never, $source): string {
            try {
                $never->future()->await(null, $source->cancellation());
            } catch (CancelledException) {
                return 'cancelled, then ' . $this->after(0.5, 'waited again');
            }

            return 'not cancelled';
        });

        self::assertSame('cancelled, then waited again', $outcome->await());
        self::assertSame(1.5, $this->clock->now());
    }

    public function testTheWaiterDoesNotKeepItsFiberAlive(): void
    {
        $fiber = new \Fiber(function (): void {
            $this->after(1.0, null);
        });
        $fiber->start();
        $this->loop->run();
        self::assertTrue($fiber->isTerminated());
        $gone = \WeakReference::create($fiber);

        unset($fiber);

        self::assertNull($gone->get());
    }

    /**
     * @template T
     *
     * @param T $value
     *
     * @return T
     */
    private function after(float $seconds, mixed $value): mixed
    {
        /** @var Deferred<T> $deferred */
        $deferred = new Deferred($this->loop);
        $this->loop->delay($seconds, static function () use ($deferred, $value): void {
            $deferred->resolve($value);
        });

        return $deferred->future()->await();
    }
}
