<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Tests\Support\EtcdServer;
use PHPUnit\Framework\TestCase;

/**
 * Runs bench/cluster/run.php --smoke as CI does: a real etcd and real nodes on loopback at tiny
 * counts. Checks that every figure is there and plausible, never how fast anything was.
 */
final class ClusterBenchSmokeTest extends TestCase
{
    public function testTheSmokeRunMeasuresAcrossNodesBesideInsideOneNode(): void
    {
        $why = null;
        if (EtcdServer::binary($why) === null) {
            self::markTestSkipped("bench-cluster needs etcd: {$why}");
        }
        [$process, $results] = SmokeRun::run('bench/cluster/run.php', 180.0);

        self::assertIsArray($results);
        $messaging = $results['messaging'] ?? null;
        self::assertIsArray($messaging);
        self::assertSame(3, $messaging['workers'], 'node A (2 workers) and node B (1 worker) in one view');
        foreach (['local', 'worker', 'node'] as $target) {
            foreach (['msgs_per_s', 'ask_p50_us', 'ask_p99_us'] as $figure) {
                self::assertIsNumeric($messaging["{$target}_{$figure}"] ?? null, "{$target}_{$figure}");
                self::assertGreaterThan(0, $messaging["{$target}_{$figure}"], "{$target}_{$figure}");
            }
        }
        self::assertSame(15_000, $messaging['fanout_messages']);
        foreach (['world_nodes_2x1', 'world_node_1x2', 'world_pool_2'] as $case) {
            $world = $results[$case] ?? null;
            self::assertIsArray($world, $case);
            self::assertSame(2, $world['workers'], $case);
            self::assertSame(4_000, $world['orders'], "{$case}: every order was counted by a shard");
            self::assertGreaterThan(0, $world['orders_per_s'], $case);
        }
        $moves = $results['moves'] ?? null;
        self::assertIsArray($moves);
        self::assertSame(500, $moves['entities']);
        self::assertGreaterThan(0, $moves['moved_on_join'], 'part of the entities moved to the node that joined');
        self::assertLessThan(500, $moves['moved_on_join'], 'only part of them');
        self::assertGreaterThan(0, $moves['on_killed_node']);
        self::assertGreaterThan(0, $moves['join_seconds']);
        self::assertGreaterThan(0, $moves['kill_seconds']);
        self::assertStringContainsString('| tell, one pair of slots |', $process->stdout);
    }
}
