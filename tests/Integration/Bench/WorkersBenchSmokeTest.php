<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use PHPUnit\Framework\TestCase;

/**
 * Runs bench/workers/run.php --smoke as CI does: real worker pools at tiny counts. Checks that every
 * figure is there and plausible, never how fast anything was.
 */
final class WorkersBenchSmokeTest extends TestCase
{
    public function testTheSmokeRunMeasuresMessagingAndTheWorldWithOneAndTwoWorkers(): void
    {
        [$process, $results] = SmokeRun::run('bench/workers/run.php', 90.0);

        self::assertIsArray($results);
        $messaging = $results['messaging'] ?? null;
        self::assertIsArray($messaging);
        self::assertSame(2, $messaging['workers']);
        foreach (['pair_msgs_per_s', 'local_msgs_per_s', 'ask_rtt_us', 'local_ask_rtt_us', 'fanout_ms'] as $key) {
            self::assertIsNumeric($messaging[$key] ?? null, $key);
            self::assertGreaterThan(0, $messaging[$key], $key);
        }
        self::assertSame(10_000, $messaging['fanout_messages']);
        foreach ([1, 2] as $workers) {
            $world = $results["world_{$workers}"] ?? null;
            self::assertIsArray($world);
            self::assertSame($workers, $world['workers']);
            self::assertSame(2_000 * $workers, $world['orders'], 'every order was counted by a shard');
            self::assertGreaterThan(0, $world['orders_per_s']);
        }
        self::assertStringContainsString('| world: 2 workers / 1 worker |', $process->stdout);
    }
}
