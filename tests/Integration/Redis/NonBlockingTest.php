<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\RedisPool;

final class NonBlockingTest extends RedisTestCase
{
    public function testTheLoopRunsOnWhileAFiberWaitsOnBlpop(): void
    {
        $blocking = $this->client();
        $other = $this->client();
        $started = microtime(true);
        $waiter = $this->loop->async(static fn(): mixed => $blocking->command('BLPOP', 'empty', 1));

        $ticks = [];
        $timer = $this->loop->repeat(0.01, static function () use (&$ticks, $started): void {
            $ticks[] = microtime(true) - $started;
        });
        $ping = $this->loop->async(static function () use ($other, $started): float {
            $other->ping();

            return microtime(true) - $started;
        });

        self::assertLessThan(0.1, $ping->await(), 'another fiber got its reply within milliseconds');
        $this->runUntil(static function () use (&$ticks): bool {
            return \count($ticks) >= 5;
        });
        self::assertLessThan(0.2, $ticks[4], 'the timer kept firing every 10 ms');
        self::assertFalse($waiter->isSettled(), 'BLPOP is still waiting');

        self::assertNull($waiter->await());
        $this->loop->cancel($timer);
        self::assertGreaterThanOrEqual(0.9, microtime(true) - $started);
        self::assertGreaterThan(50, \count($ticks), 'the timer ran all along');
    }

    public function testAPushWakesTheBlockedFiber(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 2, 1.0));
        $popped = $this->loop->async(static fn(): mixed => $pool->command('BLPOP', 'jobs', 5));
        $this->loop->delay(0.05, static function () use ($pool): void {
            $pool->command('RPUSH', 'jobs', 'job-1');
        });
        $started = microtime(true);
        self::assertSame(['jobs', 'job-1'], $popped->await());
        self::assertLessThan(1.0, microtime(true) - $started);
    }
}
