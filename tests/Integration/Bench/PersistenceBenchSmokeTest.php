<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Bench;

use Nexus\Tests\Integration\Cli\PhpProcess;
use PHPUnit\Framework\TestCase;

/**
 * Runs bench/persistence/run.php --smoke (SQLite, tiny counts, the HTTP case with 1 worker when
 * wrk is there) and checks the JSON it writes, never how fast anything was.
 */
final class PersistenceBenchSmokeTest extends TestCase
{
    private const TIME_LIMIT = 120.0;

    public function testSmokeRunWritesSaneResults(): void
    {
        $root = \dirname(__DIR__, 3);
        $json = sys_get_temp_dir() . '/nexus-persistence-smoke-' . bin2hex(random_bytes(4)) . '.json';
        $wrk = trim((string) shell_exec('command -v wrk 2>/dev/null')) !== '';
        $cases = 'single,concurrent,recovery-one,recovery-many' . ($wrk ? ',http' : '');
        $process = PhpProcess::run(["{$root}/bench/persistence/run.php", '--smoke', "--json={$json}", "--cases={$cases}"], $root, self::TIME_LIMIT);
        $text = @file_get_contents($json);
        @unlink($json);

        self::assertSame(0, $process->exitCode, $process->describe());
        self::assertIsString($text, 'No JSON written. ' . $process->describe());
        $document = json_decode($text, true, 32, \JSON_THROW_ON_ERROR);
        self::assertIsArray($document);
        self::assertIsArray($document['cases'] ?? null);
        $sqlite = $document['cases']['sqlite'] ?? null;
        self::assertIsArray($sqlite);
        foreach (['single', 'concurrent', 'recovery-one', 'recovery-many'] as $case) {
            $result = $sqlite[$case] ?? null;
            self::assertIsArray($result, "{$case} has results");
            self::assertGreaterThan(0.0, $result['events_per_s'] ?? 0.0, $case);
            self::assertGreaterThan(0.0, $result['baseline_events_per_s'] ?? 0.0, "{$case} baseline");
        }
        $many = $sqlite['recovery-many'];
        self::assertIsArray($many);
        self::assertSame(20, $many['actors'] ?? null);
        if ($wrk) {
            self::assertIsArray($document['http']);
            self::assertSame(['memory', 'sqlite'], array_column($document['http'], 'counter'));
            foreach ($document['http'] as $row) {
                self::assertIsArray($row);
                self::assertGreaterThan(0.0, $row['rps'] ?? 0.0);
            }
        }
    }
}
