<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Listener;
use Nexus\Redis\Exception\InvalidRedisCommandException;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisConfig;

final class PipelineTest extends RedisTestCase
{
    public function testAThousandIncrsInOneGo(): void
    {
        $redis = $this->client();
        $replies = $redis->pipeline(array_fill(0, 1000, ['INCR', 'counter']));
        self::assertSame(range(1, 1000), $replies);
        self::assertSame('1000', $redis->get('counter'));
    }

    public function testCommandsOfOneTurnShareOneWrite(): void
    {
        // A counting relay in front of the real server sees each chunk the client writes.
        $listener = Listener::listen($this->loop, 'tcp://127.0.0.1:0');
        $chunks = [];
        $upstreams = [];
        $listener->onConnection(function (Connection $downstream) use (&$chunks, &$upstreams): void {
            $upstream = Connector::connect($this->loop, 'tcp://127.0.0.1:' . $this->server()->port)->await();
            $upstreams[] = $upstream;
            $upstream->onData(static function (string $data) use ($downstream): void {
                $downstream->write($data);
            });
            $downstream->onData(static function (string $data) use ($upstream, &$chunks): void {
                $chunks[] = \strlen($data);
                $upstream->write($data);
            });
        });
        $port = (int) substr($listener->address(), (int) strrpos($listener->address(), ':') + 1);
        $redis = $this->track(RedisClient::connect($this->loop, new RedisConfig('127.0.0.1', $port)));
        $redis->command('CONFIG', 'RESETSTAT');
        $chunks = [];
        $futures = [];
        for ($i = 0; $i < 1000; ++$i) {
            $futures[] = $redis->commandAsync('INCR', 'c');
        }
        self::assertSame(1000, $redis->pendingCount());
        $results = [];
        foreach ($futures as $future) {
            $results[] = $future->await();
        }
        self::assertSame(range(1, 1000), $results);
        self::assertSame(0, $redis->pendingCount());
        self::assertCount(1, $chunks, 'the 1,000 commands arrive as one chunk');
        $info = $redis->command('INFO', 'commandstats');
        self::assertIsString($info);
        self::assertMatchesRegularExpression('/cmdstat_incr:calls=1000,/', $info);
        foreach ($upstreams as $upstream) {
            $upstream->close();
        }
        $listener->close();
    }

    public function testAnErrorReplyStaysInItsSlot(): void
    {
        $redis = $this->client();
        $redis->set('s', 'text');
        $replies = $redis->pipeline([['SET', 'a', 1], ['INCR', 's'], ['GET', 'a']]);
        self::assertSame('OK', $replies[0]);
        self::assertInstanceOf(RedisErrorException::class, $replies[1]);
        self::assertSame('ERR', $replies[1]->prefix);
        self::assertSame('1', $replies[2]);
    }

    public function testPipelineAndSingleCommandsInterleave(): void
    {
        $redis = $this->client();
        $first = $redis->commandAsync('ECHO', 'before');
        $batch = $redis->pipelineAsync([['ECHO', 'p1'], ['ECHO', 'p2']]);
        $last = $redis->commandAsync('ECHO', 'after');
        self::assertSame('after', $last->await());
        self::assertSame('before', $first->await());
        self::assertSame(['p1', 'p2'], $batch->await());
        self::assertSame([], $redis->pipeline([]));
    }

    public function testEmptyCommandIsRejectedBeforeSending(): void
    {
        $redis = $this->client();
        $this->expectException(InvalidRedisCommandException::class);
        $redis->pipeline([['PING'], []]);
    }
}
