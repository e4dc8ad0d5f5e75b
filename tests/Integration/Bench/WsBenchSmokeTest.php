<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\WebSocket\WsReport;
use PHPUnit\Framework\TestCase;

/**
 * Runs bench/ws/run.php --smoke (make bench-ws at tiny counts): Nexus and Workerman really serve,
 * and every figure is there and plausible, never how fast anything was. Then the report of those
 * results is written into a copy of a performance document.
 */
final class WsBenchSmokeTest extends TestCase
{
    private const ROOT = __DIR__ . '/../../..';

    public function testTheSmokeRunMeasuresEchoBroadcastAndIdleConnectionsForBothServers(): void
    {
        if (!is_file(self::ROOT . '/../shared/peers/workerman/src/Worker.php') && !is_file(self::ROOT . '/../../shared/peers/workerman/src/Worker.php')) {
            self::markTestSkipped('Workerman is not in ../shared/peers: make bench-ws needs it beside Nexus.');
        }
        [$process, $results] = SmokeRun::run('bench/ws/run.php', 120.0);

        self::assertIsArray($results);
        foreach (['nexus', 'workerman'] as $server) {
            self::assertGreaterThan(0, self::at($results, 'echo', $server, 'median'), "{$server} echoed");
            self::assertGreaterThan(0, self::at($results, 'echo', $server, 'cpu_us'), "{$server}'s CPU was read");
            self::assertGreaterThan(0, self::at($results, 'broadcast', $server, 'median'), "{$server} broadcast");
            self::assertSame(0, self::at($results, 'broadcast', $server, 'closed'), "no client of {$server} was closed for not reading");
            self::assertGreaterThan(0, self::at($results, 'idle', $server, 'bytes_per_connection'), "{$server}'s memory was read");
            self::assertGreaterThan(0, self::at($results, 'idle', $server, 'p99_ms'), "{$server} answered beside its idle connections");
        }
        self::assertGreaterThan(0, self::at($results, 'idle', 'nexus-deflate', 'bytes_per_connection'));
        // Many idle connections on one worker (50 in the smoke run): measured, unless epoll or the descriptor limit is missing here.
        if (self::at($results, 'idle', 'nexus-many', 'skipped') === null) {
            self::assertSame(50, self::at($results, 'idle', 'nexus-many', 'all_answered'), 'every idle connection got its echo');
            self::assertSame(0, self::at($results, 'idle', 'nexus-many', 'closed'), 'no idle connection was closed');
            self::assertGreaterThan(0, self::at($results, 'idle', 'nexus-many', 'p99_ms'));
            self::assertGreaterThan(0, self::at($results, 'idle', 'nexus-many', 'bytes_per_connection'));
        }
        $typed = [];
        foreach ($results as $key => $value) {
            $typed[(string) $key] = $value;
        }
        self::assertStringContainsString('| PHP heap per idle connection, 30 idle |', $process->stdout);
        self::assertStringContainsString('| echo latency with 50 idle connections open on one worker, p50 / p99 / max |', $process->stdout);

        $doc = tempnam(sys_get_temp_dir(), 'nexus-ws-doc-');
        $svg = sys_get_temp_dir() . '/nexus-ws-smoke-' . getmypid() . '.svg';
        self::assertIsString($doc);
        try {
            file_put_contents($doc, "# Performance\n\nSomething else.\n");
            self::assertNull((new WsReport($typed))->writeInto($doc, $svg, 'make bench-ws'));
            $written = (string) file_get_contents($doc);
            self::assertStringContainsString("Something else.\n", $written);
            self::assertStringContainsString("## WebSocket (`make bench-ws`)\n\n<!-- bench:ws:start -->", $written);
            self::assertStringContainsString('| echo round trips/s, 10 connections (median) |', $written);
            self::assertStringStartsWith('<?xml', (string) file_get_contents($svg));
            self::assertNull((new WsReport($typed))->writeInto($doc, $svg, 'make bench-ws'));
            self::assertSame(1, substr_count((string) file_get_contents($doc), '<!-- bench:ws:start -->'), 'a second run replaces its section');
        } finally {
            @unlink($doc);
            @unlink($svg);
        }
    }

    /**
     * @param array<mixed> $results
     */
    private static function at(array $results, string ...$keys): mixed
    {
        $value = $results;
        foreach ($keys as $key) {
            if (!\is_array($value)) {
                return null;
            }
            $value = $value[$key] ?? null;
        }

        return $value;
    }
}
