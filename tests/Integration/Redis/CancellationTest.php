<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisPool;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;

/**
 * A cancelled command fails at once with the CancelledException; its connection is closed (its
 * reply cannot be skipped) and a pool replaces it.
 */
final class CancellationTest extends RedisTestCase
{
    private ?RedisClient $admin = null;

    public function testACancelledCommandClosesItsConnectionAndFailsTheOthersWithTheReason(): void
    {
        $redis = $this->client();
        $source = new DeferredCancellation($this->loop);
        $blocked = $redis->executeAsync(['BLPOP', 'nothing', 0], $source->cancellation());
        $behind = $redis->commandAsync('PING');
        $this->pollUntil(fn(): bool => $this->blockedClients() === 1);

        $source->cancel(new \RuntimeException('the client went away'));

        try {
            $blocked->await();
            self::fail('cancelled');
        } catch (CancelledException $e) {
            self::assertStringContainsString('the client went away', $e->getMessage());
        }
        try {
            $behind->await();
            self::fail('the command behind fails too');
        } catch (RedisConnectionException $e) {
            self::assertStringContainsString('cancelled before its reply', $e->getMessage());
        }
        self::assertTrue($redis->isClosed());
        $this->pollUntil(fn(): bool => $this->blockedClients() === 0);
    }

    public function testACommandAnsweredBeforeTheCancellationIsNotAffected(): void
    {
        $redis = $this->client();
        $source = new DeferredCancellation($this->loop);
        self::assertSame('PONG', $redis->execute(['PING'], $source->cancellation()));
        $source->cancel();

        self::assertFalse($redis->isClosed());
        self::assertSame('PONG', $redis->ping());
    }

    public function testAPoolReplacesTheConnectionOfACancelledCommand(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 1, 5.0));
        $pool->command('CLIENT', 'SETNAME', 'first');
        $source = new DeferredCancellation($this->loop);
        $blocked = $this->loop->async(static function () use ($pool, $source): string {
            try {
                $pool->execute(['BLPOP', 'nothing', 0], $source->cancellation());

                return 'popped';
            } catch (CancelledException) {
                return 'cancelled';
            }
        });
        $this->pollUntil(fn(): bool => $this->blockedClients() === 1);
        $source->cancel();

        self::assertSame('cancelled', $blocked->await());
        self::assertSame(0, $pool->size(), 'the connection was closed and its slot freed');
        self::assertNull($pool->command('CLIENT', 'GETNAME'), 'a new connection');
        self::assertSame(1, $pool->size());
        $this->pollUntil(fn(): bool => $this->blockedClients() === 0);
    }

    public function testTheTimeLimitOfTheRunningTaskCancelsAPoolCommand(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 1, 5.0));
        $source = new DeferredCancellation($this->loop);
        $scheduler = $this->loop->scheduler();
        // An HTTP handler runs under its time limit like this.
        $handler = $this->loop->async(static function () use ($pool, $source, $scheduler): string {
            $scheduler->setCancellation($source->cancellation());
            try {
                $pool->command('BLPOP', 'nothing', 0);

                return 'popped';
            } catch (CancelledException) {
                return 'cancelled';
            } finally {
                $scheduler->setCancellation(null);
            }
        });
        $this->pollUntil(fn(): bool => $this->blockedClients() === 1);
        $source->cancel();

        self::assertSame('cancelled', $handler->await());
        self::assertSame('PONG', $pool->command('PING'));
        self::assertSame(1, $pool->size());
        $this->pollUntil(fn(): bool => $this->blockedClients() === 0);
    }

    public function testACallerCancelledWhileWaitingForAConnectionLeavesTheQueue(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 1, 30.0));
        $holder = $this->loop->async(static fn(): mixed => $pool->command('BLPOP', 'nothing', '0.2'));
        $this->runUntil(static fn(): bool => $pool->size() === 1 && $pool->idleCount() === 0 && $pool->waitingCount() === 0);
        $source = new DeferredCancellation($this->loop);
        $waiter = $pool->acquire($source->cancellation());
        self::assertSame(1, $pool->waitingCount());
        $source->cancel();

        self::assertTrue($waiter->isRejected());
        $waiter->ignore();
        self::assertSame(0, $pool->waitingCount());
        self::assertNull($holder->await());
        self::assertSame(1, $pool->idleCount());
    }

    private function blockedClients(): int
    {
        $this->admin ??= $this->client();
        $info = $this->admin->command('INFO', 'clients');
        self::assertIsString($info);
        self::assertSame(1, preg_match('/blocked_clients:(\d+)/', $info, $match));

        return (int) ($match[1] ?? 0);
    }
}
