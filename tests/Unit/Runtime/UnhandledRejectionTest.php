<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\UnhandledRejectionException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * A failure nobody handles is reported, never lost.
 */
final class UnhandledRejectionTest extends TestCase
{
    private Loop $loop;
    /** @var list<\Throwable> */
    private array $reported = [];

    protected function setUp(): void
    {
        $this->loop = new Loop(new VirtualClock());
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            $this->reported[] = $e;
        });
    }

    public function testAFailedAsyncWhoseFutureIsDroppedIsReportedWithItsFailure(): void
    {
        $failure = new \DomainException('the task failed');
        $this->loop->async(static function () use ($failure): never {
            throw $failure;
        });
        $this->loop->runUntilIdle();

        self::assertCount(1, $this->reported);
        self::assertInstanceOf(UnhandledRejectionException::class, $this->reported[0]);
        self::assertSame($failure, $this->reported[0]->getPrevious());
        self::assertStringContainsString('DomainException: the task failed', $this->reported[0]->getMessage());
    }

    public function testARejectedDeferredThatNobodyWatchesIsReportedOnceDropped(): void
    {
        /** @var Deferred<int> $deferred */
        $deferred = new Deferred($this->loop);
        $deferred->reject(new \RuntimeException('nobody listens'));
        $this->loop->runUntilIdle();
        self::assertSame([], $this->reported, 'not while somebody could still handle it');

        unset($deferred);
        $this->loop->runUntilIdle();
        self::assertCount(1, $this->reported);
        $reported = $this->reported();
        self::assertInstanceOf(UnhandledRejectionException::class, $reported);
        self::assertSame('nobody listens', $reported->getPrevious()?->getMessage());
    }

    public function testAwaitedSubscribedOrIgnoredFailuresAreNotReported(): void
    {
        $awaited = Future::rejected($this->loop, new \RuntimeException('awaited'));
        try {
            $awaited->await();
        } catch (\RuntimeException) {
        }
        $subscribed = Future::rejected($this->loop, new \RuntimeException('subscribed'));
        $subscribed->onSettle(static function (): void {});
        Future::rejected($this->loop, new \RuntimeException('ignored'))->ignore();
        $this->loop->async(static function (): never {
            throw new \RuntimeException('ignored task');
        })->ignore();
        /** @var Deferred<int> $late */
        $late = new Deferred($this->loop);
        $late->future()->onSettle(static function (): void {});
        $late->reject(new \RuntimeException('handled before it failed'));
        unset($awaited, $subscribed, $late);
        $this->loop->runUntilIdle();

        self::assertSame([], $this->reported);
    }

    public function testWithoutAnErrorHandlerTheLoopThrowsIt(): void
    {
        $loop = new Loop(new VirtualClock());
        $loop->async(static function (): never {
            throw new \RuntimeException('lost?');
        });
        $this->expectException(UnhandledRejectionException::class);
        $loop->runUntilIdle();
    }

    private function reported(): ?\Throwable
    {
        return $this->reported[0] ?? null;
    }
}
