<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisTimeoutException;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisConfig;

final class CommandsTest extends RedisTestCase
{
    public function testEveryReplyType(): void
    {
        $redis = $this->client();
        self::assertSame('PONG', $redis->command('PING'));
        self::assertSame('OK', $redis->command('SET', 'k', 'v'));
        self::assertSame(1, $redis->command('EXISTS', 'k'));
        self::assertSame('v', $redis->command('GET', 'k'));
        self::assertNull($redis->command('GET', 'missing'));
        self::assertSame('', $redis->command('ECHO', ''));
        $binary = "\0\r\n\xff" . str_repeat('x', 100_000);
        $redis->command('SET', 'bin', $binary);
        self::assertSame($binary, $redis->command('GET', 'bin'));
        $redis->command('RPUSH', 'l', 'a', 2, 3.5);
        self::assertSame(['a', '2', '3.5'], $redis->command('LRANGE', 'l', 0, -1));
        self::assertSame([], $redis->command('LRANGE', 'nothing', 0, -1));
        self::assertSame(['OK', 'QUEUED', 'QUEUED', ['OK', 'v2']], $redis->pipeline([['MULTI'], ['SET', 'k', 'v2'], ['GET', 'k'], ['EXEC']]));
        $nested = $redis->command('EVAL', "return {1, {'a', {}}, false}", 0);
        self::assertSame([1, ['a', []], null], $nested);
    }

    public function testErrorRepliesCarryTheirPrefix(): void
    {
        $redis = $this->client();
        $redis->command('SET', 'str', 'x');
        try {
            $redis->command('LPUSH', 'str', 'y');
            self::fail('LPUSH on a string must fail');
        } catch (RedisErrorException $e) {
            self::assertSame('WRONGTYPE', $e->prefix);
            self::assertStringContainsString('wrong kind of value', $e->detail);
        }
        try {
            $redis->command('NOSUCHCOMMAND');
            self::fail('an unknown command must fail');
        } catch (RedisErrorException $e) {
            self::assertSame('ERR', $e->prefix);
        }
        self::assertSame('PONG', $redis->ping(), 'the connection is still usable after error replies');
    }

    public function testConvenienceMethods(): void
    {
        $redis = $this->client();
        self::assertTrue($redis->set('a', 'one'));
        self::assertFalse($redis->set('a', 'two', onlyIfAbsent: true));
        self::assertSame('one', $redis->get('a'));
        self::assertTrue($redis->set('ttl', 1, 10.0));
        $pttl = $redis->command('PTTL', 'ttl');
        self::assertIsInt($pttl);
        self::assertGreaterThan(9_000, $pttl);
        self::assertSame(1, $redis->incr('n'));
        self::assertSame(11, $redis->incrBy('n', 10));
        self::assertTrue($redis->expire('n', 100));
        self::assertFalse($redis->expire('missing', 100));
        self::assertSame(2, $redis->exists('a', 'n', 'missing'));
        self::assertSame(1, $redis->hset('h', 'f', 'v'));
        self::assertSame('v', $redis->hget('h', 'f'));
        self::assertNull($redis->hget('h', 'nope'));
        self::assertSame(['f' => 'v'], $redis->hgetAll('h'));
        self::assertSame(2, $redis->rpush('list', 'b', 'c'));
        self::assertSame(3, $redis->lpush('list', 'a'));
        self::assertSame(['a', 'b', 'c'], $redis->lrange('list', 0, -1));
        self::assertSame(0, $redis->publish('nobody', 'hello'));
        self::assertSame(2, $redis->del('a', 'h'));
        self::assertNull($redis->get('a'));
    }

    public function testSelectsTheConfiguredDatabase(): void
    {
        $server = $this->server();
        $db2 = $this->track(RedisClient::connect($this->loop, RedisConfig::fromUri($server->uri() . '/2')));
        $db2->set('where', 'two');
        self::assertNull($this->client()->get('where'));
        self::assertSame('two', $db2->get('where'));
    }

    public function testBadDatabaseFailsTheConnect(): void
    {
        $this->expectException(RedisConnectionException::class);
        $this->expectExceptionMessage('refused SELECT 99');
        RedisClient::connect($this->loop, RedisConfig::fromUri($this->server()->uri() . '/99'));
    }

    public function testNothingListeningFailsTheConnect(): void
    {
        $this->expectException(RedisConnectionException::class);
        $this->expectExceptionMessage('Is redis-server running there?');
        RedisClient::connect($this->loop, new RedisConfig('127.0.0.1', 1));
    }

    public function testCommandsFromManyFibersAreMatchedInOrder(): void
    {
        $redis = $this->client();
        $futures = [];
        for ($i = 0; $i < 50; ++$i) {
            $futures[] = $this->loop->async(static fn(): mixed => $redis->command('ECHO', "m{$i}"));
        }
        foreach ($futures as $i => $future) {
            self::assertSame("m{$i}", $future->await());
        }
    }

    public function testCommandTimeoutClosesTheConnection(): void
    {
        $redis = $this->client(commandTimeout: 0.2);
        // Blocks for ever: only the command timeout can end it.
        $blocked = $redis->commandAsync('BLPOP', 'never', 0);
        $behind = $redis->commandAsync('PING');
        $started = $this->loop->now();
        try {
            $blocked->await();
            self::fail('the blocking command must time out');
        } catch (RedisTimeoutException $e) {
            self::assertStringContainsString('command timeout of 0.200 s', $e->getMessage());
            self::assertStringContainsString('the 1 commands queued behind failed too', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.2, $this->loop->now() - $started, 'not before the timeout');
        self::assertTrue($redis->isClosed());
        try {
            $behind->await();
            self::fail('the command behind fails with the reason');
        } catch (RedisTimeoutException $e) {
            self::assertStringContainsString('command timeout', $e->getMessage());
        }
    }

    public function testEachCommandGetsTheWholeTimeoutFromWhenItWasSent(): void
    {
        $redis = $this->client(commandTimeout: 0.3);
        self::assertNull($redis->command('BLPOP', 'never', '0.1'));
        $started = $this->loop->now();
        try {
            $redis->command('BLPOP', 'never', 0);
            self::fail('the second command must time out');
        } catch (RedisTimeoutException) {
            self::assertGreaterThanOrEqual(0.3, $this->loop->now() - $started);
        }
    }

    public function testClosedClientRejectsCommands(): void
    {
        $redis = $this->client();
        $pending = $redis->commandAsync('PING');
        $redis->close();
        try {
            $pending->await();
            self::fail('a pending command must fail on close()');
        } catch (RedisConnectionException $e) {
            self::assertStringContainsString('closed with close()', $e->getMessage());
        }
        $this->expectException(RedisConnectionException::class);
        $this->expectExceptionMessage('This Redis client is closed');
        $redis->get('x');
    }
}
