<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisPoolClosedException;
use Nexus\Redis\Exception\RedisPoolTimeoutException;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisConfig;
use Nexus\Redis\RedisPool;

final class PoolTest extends RedisTestCase
{
    public function testNeverOpensMoreThanMaxSize(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 3, 5.0));
        $futures = [];
        for ($i = 0; $i < 20; ++$i) {
            // Each holds its connection for 20 ms on the server, so they must queue.
            $futures[] = $this->loop->async(static fn(): mixed => $pool->pipeline([['BLPOP', 'none', '0.02'], ['INCR', 'n']])[1]);
        }
        $this->runUntil(static fn(): bool => $pool->waitingCount() > 0);
        self::assertSame(3, $pool->size());
        $results = [];
        foreach ($futures as $future) {
            $results[] = $future->await();
        }
        sort($results);
        self::assertSame(range(1, 20), $results);
        self::assertSame(3, $pool->size());
        self::assertSame(3, $pool->idleCount());
        $clients = $this->client()->command('CLIENT', 'LIST');
        self::assertIsString($clients);
        self::assertSame(5, substr_count($clients, "\n"), 'three pooled connections, the one of setUp() and this one');
    }

    public function testWaitTimeout(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 1, 0.1));
        $holder = $this->loop->async(static fn(): mixed => $pool->command('BLPOP', 'none', 1));
        $this->runUntil(static fn(): bool => $pool->size() === 1 && $pool->idleCount() === 0 && $pool->waitingCount() === 0);
        $started = $this->loop->now();
        try {
            $pool->command('PING');
            self::fail('the pool must give up waiting');
        } catch (RedisPoolTimeoutException $e) {
            self::assertStringContainsString('within 0.100 s', $e->getMessage());
            self::assertStringContainsString('Redis pool for 127.0.0.1:', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.1, $this->loop->now() - $started, 'not before the wait timeout');
        self::assertFalse($holder->isSettled(), 'it gave up while the connection was still busy');
        self::assertSame(0, $pool->waitingCount());
        self::assertNull($holder->await());
        self::assertSame('PONG', $pool->command('PING'));
    }

    public function testBrokenConnectionsAreReplaced(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 2, 1.0));
        $victim = $pool->acquire()->await();
        $victim->command('CLIENT', 'SETNAME', 'victim');
        $pool->release($victim);
        self::assertSame(1, $pool->size());
        self::assertSame(1, $this->client()->command('CLIENT', 'KILL', 'SKIPME', 'yes', 'TYPE', 'normal', 'USER', 'default') >= 1 ? 1 : 0);
        // The idle connection notices as soon as the loop reads the end of its socket.
        $this->runUntil(static fn(): bool => $victim->isClosed());
        self::assertSame('PONG', $pool->command('PING'), 'a fresh connection replaces the killed one');
        self::assertSame(1, $pool->size());
        self::assertNull($pool->command('CLIENT', 'GETNAME'));
    }

    public function testWithClientAndTransactions(): void
    {
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), 2, 1.0));
        $result = $pool->withClient(static function (RedisClient $redis): mixed {
            $redis->command('MULTI');
            $redis->command('INCR', 't');
            $redis->command('INCR', 't');

            return $redis->command('EXEC');
        });
        self::assertSame([1, 2], $result);
    }

    public function testConnectFailureReachesTheCaller(): void
    {
        $pool = $this->track(new RedisPool($this->loop, new RedisConfig('127.0.0.1', 1), 2, 1.0));
        try {
            $pool->command('PING');
            self::fail('no server there');
        } catch (RedisConnectionException $e) {
            self::assertStringContainsString('Could not connect', $e->getMessage());
        }
        self::assertSame(0, $pool->size());
    }

    public function testClosedPoolRefusesAndFailsWaiters(): void
    {
        $pool = new RedisPool($this->loop, $this->server()->config(), 1, 5.0);
        $holder = $this->loop->async(static fn(): mixed => $pool->command('BLPOP', 'none', '0.2'));
        $this->runUntil(static fn(): bool => $pool->size() === 1 && $pool->idleCount() === 0 && $pool->waitingCount() === 0);
        $waiter = $pool->acquire();
        $pool->close();
        try {
            $waiter->await();
            self::fail('a waiter must fail when the pool closes');
        } catch (RedisPoolClosedException) {
        }
        self::assertNull($holder->await());
        self::assertSame(0, $pool->size());
        $this->expectException(RedisPoolClosedException::class);
        $pool->command('PING');
    }
}
