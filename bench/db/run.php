<?php

declare(strict_types=1);

/*
 * `make bench-db`: Nexus (async PostgreSQL client) against nginx + php-fpm (blocking PDO) on a
 * database-bound endpoint, directly on loopback and through a 1 ms latency proxy, at 1, 2 and 4
 * workers. Progress on stderr; results in bench/results/db.json, the bench:db section of
 * docs/performance.md and docs/img/db-bench.svg.
 * php bench/db/run.php --help
 */

use Nexus\Bench\CommandLine;
use Nexus\Bench\Db\DbBenchOutcome;
use Nexus\Bench\Db\DbBenchRunner;
use Nexus\Bench\Db\DbBenchSettings;
use Nexus\Bench\Db\DbReport;
use Nexus\Bench\Db\DbRun;
use Nexus\Bench\Db\DbServers;
use Nexus\Bench\Db\PostgresLauncher;
use Nexus\Bench\Environment;
use Nexus\Bench\Files;
use Nexus\Bench\ReportFiles;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$options = [
    'servers' => implode(',', DbServers::ALL),
    'workers' => '1,2,4',
    'links' => implode(',', DbRun::LINKS),
    'duration' => '4',
    'warmup' => '1',
    'drain' => '2',
    'start-rate' => '100,25',
    'max-rate' => '8000',
    'factor' => '2',
    'precision' => '0.1',
    'max-steps' => '8',
    'max-in-flight' => '256',
    'delay-ms' => '1',
    'pool' => '16',
    'json' => "{$root}/bench/results/db.json",
    'doc' => "{$root}/docs/performance.md",
    'svg' => "{$root}/docs/img/db-bench.svg",
    'command' => 'make bench-db',
];
$presets = [
    // About a minute: 1 and 2 workers, short steps, a coarse search.
    'quick' => ['workers' => '1,2', 'duration' => '1.2', 'warmup' => '0.4', 'drain' => '1', 'start-rate' => '200,50', 'factor' => '2.5', 'max-steps' => '4', 'precision' => '0.25', 'json' => "{$root}/bench/results/db-quick.json", 'command' => 'make bench-db QUICK=1'],
    // Seconds, for CI: checks that everything runs and the JSON is sane, measures nothing worth reading.
    'smoke' => ['workers' => '1', 'duration' => '0.5', 'warmup' => '0.2', 'drain' => '1', 'start-rate' => '20,10', 'max-steps' => '2', 'max-in-flight' => '32', 'pool' => '4', 'json' => "{$root}/bench/results/db-smoke.json"],
];
$flags = ['quick' => false, 'smoke' => false, 'no-report' => false, 'report-only' => false];
$usage = "Usage: php bench/db/run.php [--quick | --smoke] [--no-report] [--report-only] [--OPTION=VALUE ...]\n"
    . "  --quick        about a minute: workers 1,2, 1.2 s steps, at most 4 search steps (bench/results/db-quick.json)\n"
    . "  --smoke        a few seconds, 1 worker, tiny steps, no report (bench/results/db-smoke.json); for CI\n"
    . "  --no-report    do not rewrite docs/performance.md and the chart\n"
    . "  --report-only  no measuring: rewrite the report from the --json file\n"
    . "  --start-rate=LOOPBACK,PROXY  first rate of each search (req/s)\n"
    . "Options and defaults:\n"
    . implode('', array_map(static fn(string $k, string $v): string => "  --{$k}={$v}\n", array_keys($options), $options))
    . "Needs PostgreSQL (initdb), nginx and php-fpm8.2 (Debian: apt-get install -y postgresql nginx php8.2-fpm php8.2-pgsql).\n";

[$flags, $given] = CommandLine::parse(array_slice($argv, 1), $flags, $options, $usage);
foreach (['quick', 'smoke'] as $preset) {
    if ($flags[$preset]) {
        $options = [...$options, ...$presets[$preset]];
    }
}
$options = [...$options, ...$given];
if ($flags['smoke']) {
    $flags['no-report'] = true;
}

$list = static fn(string $value): array => array_values(array_filter(array_map('trim', explode(',', $value)), static fn(string $v): bool => $v !== ''));
$number = static function (string $name) use ($options): float {
    if (!is_numeric($options[$name])) {
        fwrite(STDERR, "--{$name} must be a number, got '{$options[$name]}'.\n");
        exit(2);
    }

    return (float) $options[$name];
};
$startRates = array_map('intval', $list($options['start-rate']));

try {
    $settings = new DbBenchSettings(
        $list($options['servers']),
        array_map('intval', $list($options['workers'])),
        $list($options['links']),
        $number('duration'),
        $number('warmup'),
        $number('drain'),
        [DbRun::LOOPBACK => max(1, $startRates[0] ?? 100), DbRun::PROXY => max(1, $startRates[1] ?? $startRates[0] ?? 25)],
        (int) $number('max-rate'),
        $number('factor'),
        $number('precision'),
        (int) $number('max-steps'),
        (int) $number('max-in-flight'),
        $number('delay-ms'),
        (int) $number('pool'),
    );
} catch (InvalidArgumentException $e) {
    fwrite(STDERR, $e->getMessage() . "\n");
    exit(2);
}

if ($flags['report-only']) {
    $text = @file_get_contents($options['json']);
    $document = is_string($text) ? json_decode($text, true) : null;
    if (!is_array($document)) {
        fwrite(STDERR, "Cannot read {$options['json']}; run make bench-db first.\n");
        exit(1);
    }
    $stored = [];
    foreach (is_array($document['settings'] ?? null) ? $document['settings'] : [] as $key => $value) {
        $stored[(string) $key] = $value;
    }
    $command = is_string($document['command'] ?? null) ? $document['command'] : $options['command'];
    exit(dbWriteReport(DbBenchOutcome::fromArray($document), [...$stored, 'postgres' => $document['postgres'] ?? '?'], $options, $command) ? 0 : 1);
}

// ---- tools ------------------------------------------------------------------------------------

$tools = ['nginx' => dbFindTool('nginx'), 'php-fpm8.2' => dbFindTool('php-fpm8.2'), 'initdb' => PostgresLauncher::findBinDir()];
if (!in_array(DbServers::FPM, $settings->servers, true)) {
    unset($tools['nginx'], $tools['php-fpm8.2']);
}
$missing = array_keys(array_filter($tools, static fn(?string $path): bool => $path === null));
if (!extension_loaded('pdo_pgsql')) {
    $missing[] = 'pdo_pgsql';
}
if ($missing !== []) {
    $packages = array_map(static fn(string $tool): string => match ($tool) {
        'php-fpm8.2' => 'php8.2-fpm',
        'initdb' => 'postgresql',
        'pdo_pgsql' => 'php8.2-pgsql',
        default => $tool,
    }, $missing);
    fwrite(STDERR, 'FAILED: bench-db — missing ' . implode(', ', $missing) . '. Install them (Debian): sudo apt-get install -y ' . implode(' ', $packages) . "\n(`make bench-db` does this itself when run as root.)\n");
    exit(1);
}

// ---- run --------------------------------------------------------------------------------------

$tempDir = sys_get_temp_dir() . '/nexus-bench-db-' . bin2hex(random_bytes(4));
if (!mkdir($tempDir, 0o755)) {
    fwrite(STDERR, "Cannot create {$tempDir}.\n");
    exit(1);
}
chmod($tempDir, 0o755);
$runner = new DbBenchRunner($root, $tempDir, $settings, dbProgress(...), PHP_BINARY, $tools['nginx'] ?? 'nginx', $tools['php-fpm8.2'] ?? 'php-fpm8.2');
$cleanup = static function () use ($runner, $tempDir): void {
    $runner->stop();
    Files::removeTree($tempDir);
};
register_shutdown_function($cleanup);
if (function_exists('pcntl_async_signals')) {
    pcntl_async_signals(true);
    foreach ([SIGINT, SIGTERM] as $signal) {
        pcntl_signal($signal, static function () use ($cleanup): void {
            fwrite(STDERR, "\nInterrupted: stopping the servers and PostgreSQL.\n");
            $cleanup();
            exit(130);
        });
    }
}

$started = microtime(true);
dbProgress(sprintf(
    'bench-db: %s x workers %s x %s; steps of %.1f s after %.1f s warm-up; at most %d in flight; proxy delay %.1f ms each way',
    implode(', ', $settings->servers),
    implode(',', $settings->workers),
    implode(', ', $settings->links),
    $settings->duration,
    $settings->warmup,
    $settings->maxInFlight,
    $settings->delayMs,
));
try {
    $outcome = $runner->run();
} catch (Throwable $e) {
    fwrite(STDERR, 'FAILED: bench-db — ' . $e->getMessage() . "\n");
    $cleanup();
    exit(1);
}
$cleanup();

$meta = [
    'generated' => date('c'),
    'command' => $options['command'],
    'elapsed_seconds' => round(microtime(true) - $started, 1),
    'environment' => (array) Environment::detect(),
    'settings' => $settings->toArray(),
];
$jsonDirectory = dirname($options['json']);
if (!is_dir($jsonDirectory) && !mkdir($jsonDirectory, 0o777, true)) {
    fwrite(STDERR, "Cannot create {$jsonDirectory}.\n");
    exit(1);
}
file_put_contents($options['json'], json_encode($outcome->toArray($meta), JSON_THROW_ON_ERROR | JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE) . "\n");
$report = new DbReport($outcome->runs, $outcome->baselineMs, [...$settings->toArray(), 'postgres' => $outcome->postgresVersion]);
echo dbSummary($report, $outcome);
dbProgress(sprintf('bench-db: done in %.0f s; results in %s', microtime(true) - $started, $options['json']));
if (!$flags['no-report'] && !dbWriteReport($outcome, [...$settings->toArray(), 'postgres' => $outcome->postgresVersion], $options, $options['command'])) {
    exit(1);
}
exit(0);

// ---- helpers ----------------------------------------------------------------------------------

function dbProgress(string $line): void
{
    fwrite(STDERR, $line . "\n");
}

function dbFindTool(string $name): ?string
{
    $path = getenv('PATH');
    foreach ([...explode(':', is_string($path) ? $path : ''), '/usr/sbin', '/sbin', '/usr/local/sbin'] as $directory) {
        if ($directory !== '' && is_file("{$directory}/{$name}") && is_executable("{$directory}/{$name}")) {
            return "{$directory}/{$name}";
        }
    }

    return null;
}

function dbSummary(DbReport $report, DbBenchOutcome $outcome): string
{
    $out = "\nserver    workers  link      rate held  p50 there  common rate  p50 there  RSS\n";
    foreach ($outcome->runs as $run) {
        $best = $run->best();
        $out .= sprintf(
            "%-9s %7d  %-8s  %9s  %9s  %11s  %9s  %s\n",
            $run->server,
            $run->workers,
            $run->link,
            $run->notMeasured !== null ? 'n/m' : ($best === null ? 'none' : (string) (int) $best->result->rate),
            $best?->result->p50Ms === null ? '-' : sprintf('%.1fms', $best->result->p50Ms),
            $run->common === null ? '-' : (string) (int) $run->common->result->rate,
            $run->common?->result->p50Ms === null ? '-' : sprintf('%.1fms', $run->common->result->p50Ms),
            $best?->peakRssBytes === null ? '-' : sprintf('%.0f MB', $best->peakRssBytes / 1_048_576),
        );
    }
    $out .= 'baseline (10 queries back to back): ' . implode(', ', array_map(static fn(string $l, float $ms): string => sprintf('%s %.2f ms', $l, $ms), array_keys($outcome->baselineMs), $outcome->baselineMs)) . "\n";
    $out .= sprintf("load generator CPU: at most %.2f of a core\n\nTargets:\n", $outcome->generatorCpuMax);
    foreach ($report->targets() as [$target, $measured, $ok]) {
        $out .= sprintf("  [%s] %s: %s\n", match ($ok) {
            true => ' ok ',
            false => 'MISS',
            null => 'n/a ',
        }, $target, $measured);
    }

    return $out;
}

/**
 * @param array<string, mixed>  $settings
 * @param array<string, string> $options
 */
function dbWriteReport(DbBenchOutcome $outcome, array $settings, array $options, string $command): bool
{
    if ($outcome->runs === []) {
        fwrite(STDERR, "No measurements: nothing to report.\n");

        return false;
    }
    $report = new DbReport($outcome->runs, $outcome->baselineMs, $settings);
    $chartPath = 'img/' . basename($options['svg']);
    $section = $report->section(Environment::detect(), $command, date('Y-m-d H:i T'), $chartPath, $outcome->generatorCpuMax);
    $error = ReportFiles::update($options['doc'], $options['svg'], static fn(string $document): string => DbReport::replaceSection($document, $section), $report->chart());
    if ($error !== null) {
        fwrite(STDERR, "{$error}\n");

        return false;
    }
    dbProgress("Updated {$options['doc']} and {$options['svg']}.");

    return true;
}
