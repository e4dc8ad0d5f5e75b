<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Log\MemoryLogger;
use Nexus\Pool\PoolDirectory;
use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisPool;
use Nexus\Telemetry\Telemetry;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Tests\Support\OtlpCollector;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracing;

/**
 * Every command through a pooled Redis connection counts once in the pool's operation durations
 * (a pipeline as one operation), however the connection was obtained, and a command sent from
 * traced work is a client span of that work: named by the command, never its arguments.
 */
final class ObservedCommandsTest extends RedisTestCase
{
    protected function tearDown(): void
    {
        Tracing::$tracer = null;
        parent::tearDown();
    }

    public function testEveryCommandOfAPooledConnectionCountsOnce(): void
    {
        $name = 'timing-' . bin2hex(random_bytes(4));
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), maxSize: 1, name: $name));
        $durations = PoolDirectory::instruments('redis', $name)->durations;

        self::assertSame('PONG', $pool->command('PING'));
        self::assertTrue($pool->execute(['SET', 'k', 'v']) === 'OK');
        self::assertSame(['v', 'PONG'], $pool->pipeline([['GET', 'k'], ['PING']]));
        self::assertSame(3, $durations->count(), 'command(), execute(), and a pipeline as one operation');

        $pool->withClient(static function (RedisClient $client): void {
            $client->command('MULTI');
            $client->command('INCR', 'n');
            $client->command('INCR', 'n');
            self::assertSame([1, 2], $client->command('EXEC'));
        });
        self::assertSame(7, $durations->count(), 'withClient(): four commands');

        $client = $pool->acquire()->await();
        try {
            $client->command('LPUSH', 'k', 'x');
            self::fail('LPUSH on a string must fail');
        } catch (RedisErrorException $e) {
            self::assertSame('WRONGTYPE', $e->prefix);
        }
        $pool->release($client);
        self::assertSame(8, $durations->count(), 'acquire(): an error reply is timed too');
        self::assertGreaterThan(0.0, $durations->sum());
    }

    public function testCommandsOfTracedWorkAreItsClientSpans(): void
    {
        $collector = new OtlpCollector($this->loop);
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(endpoint: $collector->url() . '/v1/traces', scheduleDelay: 0.05), new MemoryLogger());
        $telemetry->install();
        $pool = $this->track(new RedisPool($this->loop, $this->server()->config(), maxSize: 1));
        $pool->command('SET', 'untraced', 'secret-value'); // no trace: no span
        $parent = new TraceContext('cccccccccccccccccccccccccccccccc', '3333333333333333');
        $this->loop->async(function () use ($pool, $parent): void {
            $scheduler = $this->loop->scheduler();
            $scheduler->trace = $parent;
            try {
                $pool->command('SET', 'session', 'secret-value');
                $pool->pipeline([['GET', 'session'], ['GET', 'session']]);
                $pool->pipeline([['GET', 'session'], ['PING']]);
                try {
                    $pool->execute(['LPUSH', 'session', 'x']);
                } catch (RedisErrorException) {
                    // recorded on its span
                }
            } finally {
                $scheduler->trace = null;
            }
        })->await();
        $telemetry->processor->flush()->await(20.0); // every span exported (a deadline, not a sleep)
        $telemetry->shutdown();

        $spans = $collector->trace('cccccccccccccccccccccccccccccccc');
        self::assertSame(['SET 0', 'BATCH GET 0', 'BATCH 0', 'LPUSH 0'], array_column($spans, 'name'));
        self::assertCount(4, $collector->spans, 'the untraced command made no span');
        foreach ($spans as $span) {
            self::assertSame('3333333333333333', $span['parentSpanId']);
            self::assertSame(3, $span['kind'], 'SPAN_KIND_CLIENT');
            self::assertSame('redis', $span['attributes']['db.system.name']);
            self::assertSame('redis', $span['attributes']['db.system']);
            self::assertSame('0', $span['attributes']['db.namespace']);
            self::assertSame($this->server()->config()->host, $span['attributes']['server.address']);
            self::assertSame($this->server()->config()->port, $span['attributes']['server.port']);
            self::assertStringNotContainsString('secret-value', json_encode($span, \JSON_THROW_ON_ERROR), 'arguments are never recorded');
        }
        [$set, $sameBatch, $mixedBatch, $failed] = $spans;
        self::assertSame('SET', $set['attributes']['db.operation.name']);
        self::assertSame(0, $set['status']);
        self::assertSame('BATCH GET', $sameBatch['attributes']['db.operation.name']);
        self::assertSame(2, $sameBatch['attributes']['db.operation.batch.size']);
        self::assertSame('BATCH', $mixedBatch['attributes']['db.operation.name']);
        self::assertSame(2, $failed['status'], 'STATUS_CODE_ERROR');
        self::assertSame('WRONGTYPE', $failed['attributes']['error.type']);
        $collector->stop();
    }
}
