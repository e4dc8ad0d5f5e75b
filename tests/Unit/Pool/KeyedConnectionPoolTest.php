<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Pool;

use Nexus\Pool\KeyedConnectionPool;
use Nexus\Pool\PoolConnector;
use Nexus\Pool\PoolOptions;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * Per-key pools under one total cap, as the HTTP client uses them (one key per origin).
 */
final class KeyedConnectionPoolTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
    }

    public function testEachKeyHasItsOwnConnections(): void
    {
        $pool = $this->pool(maxTotal: 10);
        $a = $pool->acquire('a')->await();
        $b = $pool->acquire('b')->await();
        $pool->release('a', $a);
        $pool->release('b', $b);

        self::assertSame($a, $pool->acquire('a')->await());
        self::assertSame($b, $pool->tryAcquire('b'));
        self::assertSame(['a', 'b'], $pool->keys());
        self::assertSame(2, $pool->size());
    }

    public function testAtTheTotalCapTheLongestIdleConnectionOfAnotherKeyMakesRoom(): void
    {
        $pool = $this->pool(maxTotal: 2);
        $a = $pool->acquire('a')->await();
        $pool->release('a', $a);
        $this->clock->advance(1.0);
        $b = $pool->acquire('b')->await();
        $pool->release('b', $b);

        $c = $pool->acquire('c')->await();

        self::assertTrue($a->closed, 'the connection idle the longest was closed');
        self::assertFalse($b->closed);
        self::assertSame(2, $pool->size());
        self::assertSame(1, $c->number);
    }

    public function testWithNothingIdleACallerWaitsForASlotFreedUnderAnotherKey(): void
    {
        $pool = $this->pool(maxTotal: 2);
        $a = $pool->acquire('a')->await();
        $b = $pool->acquire('b')->await();
        $waiter = $pool->acquire('c');
        self::assertFalse($waiter->isSettled());
        self::assertSame(2, $pool->size());

        $pool->release('a', $a);

        self::assertTrue($a->closed, 'given back while another key waits for a slot: closed to make room');
        $c = $waiter->await();
        self::assertSame(1, $c->number);
        self::assertSame(2, $pool->size());
        $pool->discard('b', $b);
        self::assertSame(1, $pool->size());
    }

    public function testTheCallerWaitingForASlotStillTimesOut(): void
    {
        $pool = $this->pool(maxTotal: 1, acquireTimeout: 3.0);
        $pool->acquire('a')->await();
        $waiter = $pool->acquire('b');

        $this->expectExceptionMessage('keyed [b]');
        $waiter->await();
    }

    public function testPoolsOfUnusedKeysAreDropped(): void
    {
        $pool = $this->pool(maxTotal: 3);
        for ($i = 0; $i < 50; ++$i) {
            $key = "origin-{$i}";
            $pool->discard($key, $pool->acquire($key)->await());
            self::assertLessThanOrEqual(4, \count($pool->keys()));
        }
        self::assertSame(0, $pool->size());
    }

    /**
     * @return KeyedConnectionPool<FakeConnection>
     */
    private function pool(int $maxTotal, float $acquireTimeout = 5.0): KeyedConnectionPool
    {
        return new KeyedConnectionPool(
            $this->loop,
            fn(string $key): PoolConnector => new FakeConnector($this->loop),
            new PoolOptions(maxSize: 2, acquireTimeout: $acquireTimeout),
            $maxTotal,
            'keyed',
        );
    }
}
