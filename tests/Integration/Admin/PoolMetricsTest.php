<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Admin;

use Nexus\Admin\ServedObservability;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use Nexus\Pool\PoolDirectory;
use Nexus\Postgres\PgPool;
use Nexus\Redis\RedisPool;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\DebianTool;
use Nexus\Tests\Support\PostgresServer;
use Nexus\Tests\Support\Promtool;
use Nexus\Tests\Support\RedisServer;
use PHPUnit\Framework\TestCase;

/**
 * The PostgreSQL and Redis pools' metrics, read from the PoolDirectory by the callback metrics of
 * ServedObservability: a known workload against real servers gives exact figures in the
 * Prometheus text, which promtool accepts.
 */
final class PoolMetricsTest extends TestCase
{
    private static ?RedisServer $redis = null;

    public static function setUpBeforeClass(): void
    {
        self::$redis = RedisServer::start();
    }

    public static function tearDownAfterClass(): void
    {
        self::$redis?->stop();
        self::$redis = null;
    }

    public function testAKnownWorkloadThroughBothPoolsGivesExactlyThoseFigures(): void
    {
        $loop = new Loop();
        $pgName = 'pg-' . bin2hex(random_bytes(4));
        $redisName = 'redis-' . bin2hex(random_bytes(4));
        $pg = new PgPool($loop, PostgresServer::shared()->config(), maxSize: 2, name: $pgName);
        $redis = new RedisPool($loop, (self::$redis ?? throw new \LogicException('no Redis'))->config(), maxSize: 3, name: $redisName);
        $registry = new Registry();
        ServedObservability::poolMetrics($registry);

        for ($i = 0; $i < 5; ++$i) {
            self::assertSame($i, $pg->query('SELECT $1::int AS n', [$i])->scalar());
        }
        // Both connections lent out, a third statement waits for one.
        $first = $pg->acquireAsync()->await();
        $second = $pg->acquireAsync()->await();
        $waiting = $pg->queryAsync('SELECT 1');
        $busy = PrometheusText::render($registry->snapshot());
        $pgLabels = "db_system=\"postgresql\",db_client_connection_pool_name=\"{$pgName}\"";
        self::assertStringContainsString("\ndb_client_connections_usage{{$pgLabels},db_client_connection_state=\"used\"} 2\n", $busy);
        self::assertStringContainsString("\ndb_client_connections_usage{{$pgLabels},db_client_connection_state=\"idle\"} 0\n", $busy);
        self::assertStringContainsString("\ndb_client_connection_pending_requests{{$pgLabels}} 1\n", $busy);
        self::assertStringContainsString("\ndb_client_connection_max{{$pgLabels}} 2\n", $busy);
        self::assertStringContainsString("\nnexus_db_client_connection_open{{$pgLabels}} 2\n", $busy);
        $pg->release($first);
        $pg->release($second);
        $waiting->await();

        for ($i = 0; $i < 3; ++$i) {
            $redis->command('SET', "k{$i}", (string) $i);
        }
        self::assertSame('1', $redis->execute(['GET', 'k1']));
        self::assertSame(['0', '2'], $redis->pipeline([['GET', 'k0'], ['GET', 'k2']]));
        $redis->withClient(static fn($client): mixed => $client->command('PING')); // timed too: every command of a pooled connection counts

        $text = PrometheusText::render($registry->snapshot());
        $redisLabels = "db_system=\"redis\",db_client_connection_pool_name=\"{$redisName}\"";
        foreach ([
            "db_client_operation_duration_seconds_count{{$pgLabels}} 6",
            "db_client_operation_duration_seconds_count{{$redisLabels}} 6",
            "db_client_connections_usage{{$pgLabels},db_client_connection_state=\"used\"} 0",
            "db_client_connections_usage{{$pgLabels},db_client_connection_state=\"idle\"} 2",
            "db_client_connection_pending_requests{{$pgLabels}} 0",
            "db_client_connections_usage{{$redisLabels},db_client_connection_state=\"used\"} 0",
            "db_client_connections_usage{{$redisLabels},db_client_connection_state=\"idle\"} 1",
            "db_client_connection_max{{$redisLabels}} 3",
        ] as $line) {
            self::assertStringContainsString("\n{$line}\n", $text);
        }
        self::assertMatchesRegularExpression('/^db_client_operation_duration_seconds_sum\{' . preg_quote($pgLabels, '/') . '\} [0-9.e-]+$/m', $text);
        self::assertMatchesRegularExpression('/^db_client_operation_duration_seconds_bucket\{' . preg_quote($pgLabels, '/') . ',le="\+Inf"\} 6$/m', $text);
        self::assertStringNotContainsString('password', $text);
        $this->assertPromtoolAccepts($text);

        // A pool that is freed leaves the gauges; what it counted stays.
        $pg->close();
        $redis->close();
        unset($pg, $redis, $first, $second, $waiting);
        gc_collect_cycles();
        $after = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString("\ndb_client_connections_usage{{$redisLabels},db_client_connection_state=\"idle\"} 0\n", $after);
        self::assertStringContainsString("\ndb_client_connection_max{{$redisLabels}} 0\n", $after);
        self::assertStringContainsString("\ndb_client_operation_duration_seconds_count{{$redisLabels}} 6\n", $after);
    }

    public function testAPoolNameIsALabelNeverADsn(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('A pool name is a label');
        new RedisPool(new Loop(), (self::$redis ?? throw new \LogicException('no Redis'))->config(), name: 'redis://user:secret@host/0');
    }

    public function testPastTheBoundFurtherNamesCountAsOther(): void
    {
        $kind = 'bound-' . bin2hex(random_bytes(3));
        for ($i = 0; $i < PoolDirectory::MAX_NAMES; ++$i) {
            self::assertSame("n{$i}", PoolDirectory::instruments($kind, "n{$i}")->name);
        }
        $other = PoolDirectory::instruments($kind, 'one-more');
        self::assertSame(PoolDirectory::OTHER, $other->name);
        self::assertSame($other, PoolDirectory::instruments($kind, 'and-another'));
        self::assertSame('n3', PoolDirectory::instruments($kind, 'n3')->name, 'a name seen before keeps its own series');
    }

    private function assertPromtoolAccepts(string $exposition): void
    {
        $promtool = DebianTool::find('promtool', 'prometheus', $why);
        if ($promtool === null) {
            self::markTestSkipped("The figures are right; promtool is needed to validate the exposition: {$why}");
        }
        [$code, $output] = Promtool::check($promtool, $exposition);
        self::assertSame(0, $code, "promtool check metrics: {$output}");
        self::assertSame('', trim($output), 'promtool reports no lint problem');
    }
}
