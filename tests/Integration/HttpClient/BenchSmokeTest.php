<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Bench\Environment;
use Nexus\Bench\HttpClient\ClientRun;
use Nexus\Bench\HttpClient\HttpClientReport;
use PHPUnit\Framework\TestCase;

/**
 * `make bench-http-client` in miniature: every client runs against nginx without a failed
 * request, and the report renders from what it wrote.
 */
final class BenchSmokeTest extends TestCase
{
    public function testTheBenchmarkRunsEveryClientAndReportsThem(): void
    {
        $json = sys_get_temp_dir() . '/nexus-http-client-smoke-' . bin2hex(random_bytes(4)) . '.json';
        $root = \dirname(__DIR__, 3);
        $command = [\PHP_BINARY, "{$root}/bench/http-client/run.php", '--smoke', "--json={$json}", '--duration=0.5', '--warm-duration=0.3', '--warmup=0.2', '--concurrency=8'];
        $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $stdout = (string) stream_get_contents($pipes[1]);
        $stderr = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        $status = proc_close($process);
        $lines = is_file($json) ? array_filter(explode("\n", (string) file_get_contents($json))) : [];
        @unlink($json);
        self::assertSame(0, $status, $stderr . $stdout);

        $runs = array_map(static function (string $line): ClientRun {
            $row = json_decode($line, true, 8, \JSON_THROW_ON_ERROR);
            self::assertIsArray($row);

            return ClientRun::fromArray($row);
        }, array_values($lines));
        self::assertCount(6, $runs, 'three clients, load and warm');
        foreach ($runs as $run) {
            self::assertSame(0, $run->errors, "{$run->client} {$run->mode}");
            self::assertGreaterThan(0, $run->requests, "{$run->client} {$run->mode}");
        }
        $report = new HttpClientReport($runs);
        $section = $report->section(Environment::detect(), 'make bench-http-client', 'today', 'img/x.svg', '1', '2', '3', 1);
        self::assertStringContainsString('| Nexus HttpClient |', $section);
        self::assertStringContainsString('requests/s ≥ 0.5× curl_multi', $section);
        self::assertStringStartsWith('<?xml', $report->chart());
        $document = HttpClientReport::replaceSection("# Performance\n", $section);
        self::assertSame($document, HttpClientReport::replaceSection($document, $section), 'replacing keeps one section');
    }
}
