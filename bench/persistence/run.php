<?php

declare(strict_types=1);

/*
 * `make bench-persistence`: durable actors on SQLite and PostgreSQL, each case beside a baseline
 * of plain SQL measured in the same run: one actor persisting sequentially, 1,000 actors
 * persisting concurrently (group commit), recovery of one actor with 100,000 events and of
 * 10,000 actors with 10 events each, and the demo's durable counters over HTTP against the
 * in-memory counter (2 and 1 workers). Every case runs in a fresh process with the tracing JIT.
 * Progress on stderr; results in bench/results/persistence.json, the bench:persistence section of
 * docs/performance.md and docs/img/persistence-bench.svg.
 * php bench/persistence/run.php --help
 */

use Nexus\Bench\CommandLine;
use Nexus\Bench\Db\PostgresLauncher;
use Nexus\Bench\Environment;
use Nexus\Bench\Files;
use Nexus\Bench\Persistence\CounterHttp;
use Nexus\Bench\Persistence\PersistenceReport;
use Nexus\Bench\ReportFiles;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$options = [
    'stores' => 'sqlite,postgres',
    'cases' => 'single,concurrent,recovery-one,recovery-many,http',
    'single-events' => '2000',
    'concurrent-actors' => '1000',
    'concurrent-events' => '100000',
    'recovery-one-events' => '100000',
    'recovery-many-actors' => '10000',
    'recovery-many-events' => '10',
    'repeats' => '3',
    'http-workers' => '2,1',
    'http-connections' => '100',
    'http-seconds' => '5',
    'http-warmup' => '2',
    'http-rounds' => '3',
    'json' => "{$root}/bench/results/persistence.json",
    'doc' => "{$root}/docs/performance.md",
    'svg' => "{$root}/docs/img/persistence-bench.svg",
    'command' => 'make bench-persistence',
];
$presets = [
    'quick' => ['single-events' => '500', 'concurrent-events' => '30000', 'recovery-one-events' => '30000', 'recovery-many-actors' => '3000', 'repeats' => '2', 'http-workers' => '2', 'http-seconds' => '3', 'http-warmup' => '1', 'http-rounds' => '2', 'json' => "{$root}/bench/results/persistence-quick.json", 'command' => 'make bench-persistence QUICK=1'],
    'smoke' => ['stores' => 'sqlite', 'single-events' => '20', 'concurrent-actors' => '20', 'concurrent-events' => '200', 'recovery-one-events' => '200', 'recovery-many-actors' => '20', 'repeats' => '1', 'http-workers' => '1', 'http-connections' => '4', 'http-seconds' => '1', 'http-warmup' => '1', 'http-rounds' => '1', 'json' => "{$root}/bench/results/persistence-smoke.json"],
];
$flags = ['quick' => false, 'smoke' => false, 'no-report' => false, 'report-only' => false];
$usage = "Usage: php bench/persistence/run.php [--quick | --smoke] [--no-report] [--OPTION=VALUE ...]\n"
    . "  --quick      smaller counts, 2 runs, HTTP with 2 workers only (bench/results/persistence-quick.json)\n"
    . "  --smoke      seconds, SQLite only, tiny counts, no report; for CI\n"
    . "  --no-report  do not rewrite docs/performance.md and the chart\n"
    . "  --report-only  no measuring: rewrite the report from the --json file\n"
    . "Options and defaults:\n"
    . implode('', array_map(static fn(string $k, string $v): string => "  --{$k}={$v}\n", array_keys($options), $options))
    . "Needs PostgreSQL (initdb) for --stores=postgres and wrk for the http case (Debian: apt-get install -y postgresql wrk).\n";
[$flags, $given] = CommandLine::parse(array_slice($argv, 1), $flags, $options, $usage);
foreach (['quick', 'smoke'] as $preset) {
    if ($flags[$preset]) {
        $options = [...$options, ...$presets[$preset]];
    }
}
$options = [...$options, ...$given];
$flags['no-report'] = $flags['no-report'] || $flags['smoke'];
$list = static fn(string $value): array => array_values(array_filter(array_map('trim', explode(',', $value)), static fn(string $v): bool => $v !== ''));
$stores = $list($options['stores']);
$cases = $list($options['cases']);
$progress = static function (string $line): void {
    fwrite(STDERR, $line . "\n");
};

if ($flags['report-only']) {
    $text = @file_get_contents($options['json']);
    $document = is_string($text) ? json_decode($text, true) : null;
    if (!is_array($document) || !is_array($document['cases'] ?? null) || !is_array($document['http'] ?? null)) {
        fwrite(STDERR, "Cannot read {$options['json']}; run make bench-persistence first.\n");
        exit(1);
    }
    /** @var array<string, array<string, array<string, mixed>>> $stored */
    $stored = $document['cases'];
    /** @var list<array<string, mixed>> $rows */
    $rows = array_values($document['http']);
    $generated = is_string($document['generated'] ?? null) ? substr($document['generated'], 0, 10) : date('Y-m-d');
    exit(persistenceWriteReport($stored, $rows, $options['doc'], $options['svg'], is_string($document['postgres'] ?? null) ? $document['postgres'] : '?', is_string($document['command'] ?? null) ? $document['command'] : $options['command'], $generated) ? 0 : 1);
}

$tempDir = sys_get_temp_dir() . '/nexus-bench-persistence-' . bin2hex(random_bytes(4));
if (!mkdir($tempDir, 0o755)) {
    fwrite(STDERR, "Cannot create {$tempDir}.\n");
    exit(1);
}
chmod($tempDir, 0o755);
$postgres = null;
if (in_array('postgres', $stores, true)) {
    if (PostgresLauncher::findBinDir() === null) {
        fwrite(STDERR, "FAILED: bench-persistence — PostgreSQL is not installed (apt-get install -y postgresql), or run with --stores=sqlite.\n");
        exit(1);
    }
    $progress('bench-persistence: starting PostgreSQL (fsync and synchronous_commit on)');
    $postgres = (new PostgresLauncher("{$tempDir}/postgres"))->start(50, ['fsync' => 'on', 'synchronous_commit' => 'on', 'full_page_writes' => 'on']);
}
$cleanup = static function () use ($postgres, $tempDir): void {
    $postgres?->stop();
    Files::removeTree($tempDir);
};
register_shutdown_function($cleanup);
if (function_exists('pcntl_async_signals')) {
    pcntl_async_signals(true);
    foreach ([SIGINT, SIGTERM] as $signal) {
        pcntl_signal($signal, static function () use ($cleanup): void {
            fwrite(STDERR, "\nInterrupted: stopping PostgreSQL and removing the temporary files.\n");
            $cleanup();
            exit(130);
        });
    }
}
$postgresVersion = '—';
if ($postgres !== null) {
    $version = $postgres->pdo()->query('SHOW server_version');
    $postgresVersion = $version === false ? '?' : (string) $version->fetchColumn();
}
$databases = 0;
$newDatabase = static function () use ($postgres, &$databases): string {
    if ($postgres === null) {
        throw new LogicException('PostgreSQL was not started.');
    }
    $name = 'bench_' . ++$databases;
    $postgres->pdo()->exec("CREATE DATABASE {$name}");

    return "postgres://postgres@127.0.0.1:{$postgres->port}/{$name}";
};

$php = [PHP_BINARY, '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M', '-d', 'memory_limit=2G'];
$results = [];
$started = microtime(true);
foreach ($stores as $store) {
    foreach (['single', 'concurrent', 'recovery-one', 'recovery-many'] as $case) {
        if (!in_array($case, $cases, true)) {
            continue;
        }
        [$actors, $events] = match ($case) {
            'single' => [1, (int) $options['single-events']],
            'concurrent' => [(int) $options['concurrent-actors'], (int) $options['concurrent-events']],
            'recovery-one' => [1, (int) $options['recovery-one-events']],
            'recovery-many' => [(int) $options['recovery-many-actors'], (int) $options['recovery-many-events']],
        };
        $spec = $store === 'sqlite' ? "sqlite:{$tempDir}/{$case}.sqlite" : $newDatabase();
        $progress(sprintf('bench-persistence: %s %s (%d actors, %d events, best of %s)', $store, $case, $actors, $events, $options['repeats']));
        $process = proc_open([...$php, "{$root}/bench/persistence/case.php", $case, $spec, (string) $actors, (string) $events, $options['repeats']], [1 => ['pipe', 'w'], 2 => ['file', "{$tempDir}/{$store}-{$case}.err", 'w']], $pipes);
        if (!is_resource($process)) {
            fwrite(STDERR, "FAILED: bench-persistence — cannot start the {$case} case.\n");
            exit(1);
        }
        $output = (string) stream_get_contents($pipes[1]);
        $code = proc_close($process);
        $result = json_decode($output, true);
        if ($code !== 0 || !is_array($result)) {
            fwrite(STDERR, "FAILED: bench-persistence — {$store} {$case} exited with {$code}:\n{$output}\n" . file_get_contents("{$tempDir}/{$store}-{$case}.err"));
            exit(1);
        }
        $figures = [];
        foreach ($result as $key => $value) {
            $figures[(string) $key] = $value;
        }
        $results[$store][$case] = $figures;
        $rate = static fn(mixed $value): float => is_int($value) || is_float($value) ? (float) $value : 0.0;
        $progress(sprintf('  %.0f events/s (baseline %.0f events/s)', $rate($figures['events_per_s'] ?? 0), $rate($figures['baseline_events_per_s'] ?? 0)));
    }
}

$http = [];
if (in_array('http', $cases, true)) {
    $wrk = trim((string) shell_exec('command -v wrk'));
    if ($wrk === '') {
        fwrite(STDERR, "FAILED: bench-persistence — wrk is not installed (apt-get install -y wrk), or leave out the http case.\n");
        exit(1);
    }
    $bench = new CounterHttp($root, $tempDir, $wrk);
    $rounds = max(1, (int) $options['http-rounds']);
    foreach (array_map('intval', $list($options['http-workers'])) as $workers) {
        // Each round measures every counter in turn, each on a fresh server and store, so that
        // load from elsewhere on the shared machine falls on all of them alike; the best round
        // of each counter is kept, with the spread.
        $measured = [];
        for ($round = 1; $round <= $rounds; ++$round) {
            $servers = ['memory' => ["{$root}/bench/persistence/memory-counter-app.php"]];
            foreach ($stores as $store) {
                $servers[$store] = $store === 'sqlite' ? ["--data-dir={$tempDir}/http-{$workers}-{$round}"] : ['--store=' . $newDatabase()];
            }
            foreach ($servers as $counter => $arguments) {
                $progress("bench-persistence: HTTP, {$workers} workers, {$counter} counter, round {$round} of {$rounds}");
                $row = $bench->measure("{$counter}-{$workers}w-{$round}", $workers, $arguments, (int) $options['http-connections'], (int) $options['http-seconds'], (int) $options['http-warmup']);
                $measured[$counter][] = $row;
                $progress(sprintf('  %.0f requests/s, p99 %.1f ms, %d errors', $row['rps'], $row['p99_ms'] ?? 0, $row['errors'] + $row['non2xx']));
            }
        }
        foreach ($measured as $counter => $runs) {
            $rates = array_column($runs, 'rps');
            $best = $runs[array_search(max($rates), $rates, true)];
            $http[] = ['workers' => $workers, 'counter' => $counter, ...$best, 'rounds' => count($runs), 'rps_min' => min($rates), 'rps_all' => $rates];
        }
    }
}
$cleanup();

$document = [
    'generated' => date('c'),
    'command' => $options['command'],
    'elapsed_seconds' => round(microtime(true) - $started, 1),
    'environment' => (array) Environment::detect(),
    'postgres' => $postgresVersion,
    'settings' => $options,
    'cases' => $results,
    'http' => $http,
];
$directory = dirname($options['json']);
if (!is_dir($directory) && !mkdir($directory, 0o777, true)) {
    fwrite(STDERR, "Cannot create {$directory}.\n");
    exit(1);
}
file_put_contents($options['json'], json_encode($document, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR) . "\n");
$progress("bench-persistence: results in {$options['json']}");
if (!$flags['no-report'] && !persistenceWriteReport($results, $http, $options['doc'], $options['svg'], $postgresVersion, $options['command'], date('Y-m-d'))) {
    exit(1);
}

/**
 * Rewrites the bench:persistence section of the document and the chart.
 *
 * @param array<string, array<string, array<string, mixed>>> $results
 * @param list<array<string, mixed>>                         $http
 */
function persistenceWriteReport(array $results, array $http, string $doc, string $svg, string $postgresVersion, string $command, string $date): bool
{
    $report = new PersistenceReport($results, $http);
    $section = $report->section(Environment::detect(), $command, $date, 'img/' . basename($svg), $postgresVersion);
    $problem = ReportFiles::update($doc, $svg, static fn(string $document): string => PersistenceReport::replaceSection($document, $section), $report->chart());
    if ($problem !== null) {
        fwrite(STDERR, "FAILED: bench-persistence — {$problem}\n");

        return false;
    }
    fwrite(STDERR, "bench-persistence: report in {$doc} and {$svg}\n");

    return true;
}
