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
        // Blocks until the test pushes: nothing else can end it.
        $waiter = $this->loop->async(static fn(): mixed => $blocking->command('BLPOP', 'empty', 0));

        $ticks = 0;
        $timer = $this->loop->repeat(0.01, static function () use (&$ticks): void {
            ++$ticks;
        });
        $ping = $this->loop->async(static fn(): string => $other->ping());

        self::assertSame('PONG', $ping->await(), 'another fiber got its reply');
        $this->runUntil(static function () use (&$ticks): bool {
            return $ticks >= 5;
        });
        self::assertFalse($waiter->isSettled(), 'BLPOP is still waiting while the timer fires and the other fiber runs');
        $this->loop->cancel($timer);

        $other->rpush('empty', 'job');
        self::assertSame(['empty', 'job'], $waiter->await());
    }

    public function testAPushWakesTheBlockedFiber(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 2, 1.0));
        // Blocks until the push: nothing else can end it.
        $popped = $this->loop->async(static fn(): mixed => $pool->command('BLPOP', 'jobs', 0));
        $this->loop->delay(0.05, static function () use ($pool): void {
            $pool->command('RPUSH', 'jobs', 'job-1');
        });
        self::assertSame(['jobs', 'job-1'], $popped->await());
    }
}
