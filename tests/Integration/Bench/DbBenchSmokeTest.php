<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Bench\Db\PostgresLauncher;
use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * Runs bench/db/run.php --smoke (PostgreSQL, the proxy, both servers, 1 worker, tiny steps) and
 * checks the JSON it writes, never how fast anything was.
 */
final class DbBenchSmokeTest extends TestCase
{
    private const TIME_LIMIT = 90.0;

    public function testSmokeRunWritesSaneResults(): void
    {
        foreach (['nginx', 'php-fpm8.2'] as $tool) {
            if (!is_executable("/usr/sbin/{$tool}") && trim((string) shell_exec('command -v ' . escapeshellarg($tool) . ' 2>/dev/null')) === '') {
                self::markTestSkipped("{$tool} is not installed (apt-get install -y nginx php8.2-fpm).");
            }
        }
        if (PostgresLauncher::findBinDir() === null || !\extension_loaded('pdo_pgsql')) {
            self::markTestSkipped('PostgreSQL or pdo_pgsql is not installed (apt-get install -y postgresql php8.2-pgsql).');
        }
        $root = \dirname(__DIR__, 3);
        $json = sys_get_temp_dir() . '/nexus-db-smoke-' . bin2hex(random_bytes(4)) . '.json';
        $process = PhpProcess::run(["{$root}/bench/db/run.php", '--smoke', "--json={$json}"], $root, self::TIME_LIMIT);
        $text = @file_get_contents($json);
        @unlink($json);

        self::assertSame(0, $process->exitCode, $process->describe());
        self::assertIsString($text, 'No JSON written. ' . $process->describe());
        $document = json_decode($text, true, 32, \JSON_THROW_ON_ERROR);
        self::assertIsArray($document);
        self::assertIsArray($document['baseline_ms'] ?? null);
        self::assertGreaterThan(0.0, $document['baseline_ms']['loopback'] ?? 0.0);
        self::assertGreaterThan($document['baseline_ms']['loopback'], $document['baseline_ms']['proxy'] ?? 0.0, 'The proxy adds 2 ms per query.');
        self::assertIsArray($document['results'] ?? null);
        $seen = [];
        foreach ($document['results'] as $row) {
            self::assertIsArray($row);
            $server = $row['server'] ?? null;
            $link = $row['link'] ?? null;
            $workers = $row['workers'] ?? null;
            self::assertIsString($server);
            self::assertIsString($link);
            self::assertIsInt($workers);
            $name = "{$server}/{$workers}/{$link}";
            $seen[] = $name;
            self::assertTrue($row['measured'] ?? false, "{$name} was not measured: " . json_encode($row['not_measured_reason'] ?? null));
            self::assertIsNumeric($row['rate'] ?? null, "{$name} held no rate at all.");
            foreach (['throughput', 'p50_ms', 'p95_ms', 'p99_ms', 'dropped_pct', 'rss_bytes'] as $key) {
                self::assertIsNumeric($row[$key] ?? null, "{$key} of {$name}");
            }
            self::assertLessThanOrEqual($row['p95_ms'], $row['p50_ms']);
            self::assertLessThanOrEqual($row['p99_ms'], $row['p95_ms']);
            self::assertLessThan(1.0, $row['dropped_pct']);
            self::assertGreaterThan(1_000_000, $row['rss_bytes']);
            self::assertNotEmpty($row['search']);
            if ($link === 'proxy') {
                self::assertGreaterThan(2 * 10 * 0.9, $row['p50_ms'], '10 queries through a 1 ms proxy take at least 20 ms.');
            }
        }
        sort($seen);
        self::assertSame(['nexus/1/loopback', 'nexus/1/proxy', 'php-fpm/1/loopback', 'php-fpm/1/proxy'], $seen);
    }
}
