<?php

declare(strict_types=1);

/*
 * `make bench-http`: wrk against `nexus serve`, Workerman (from ../shared/peers, skipped with a note
 * when that folder is missing), a bare stream_select loop and nginx + php-fpm, side by side, at 100
 * and 1,000 connections; a table on stdout, progress on stderr, JSON lines in
 * bench/results/http.json, and the bench:http section of docs/performance.md + docs/img/http-bench.svg.
 * php bench/http/run.php --help
 */

use Nexus\Bench\CommandLine;
use Nexus\Bench\Environment;
use Nexus\Bench\Files;
use Nexus\Bench\Http\HttpProbe;
use Nexus\Bench\Http\HttpReport;
use Nexus\Bench\Http\ManagedProcess;
use Nexus\Bench\Http\Measurement;
use Nexus\Bench\Http\RunningServer;
use Nexus\Bench\Http\ServerLauncher;
use Nexus\Bench\Http\WrkOutputParser;
use Nexus\Bench\ReportFiles;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$settings = [
    'duration' => '5',
    'warmup' => '2',
    'connections' => '100,1000',
    'threads' => '1',
    'timeout' => '2',
    'rounds' => '2',
    'servers' => implode(',', ServerLauncher::ALL),
    'json' => "{$root}/bench/results/http.json",
    'doc' => "{$root}/docs/performance.md",
    'svg' => "{$root}/docs/img/http-bench.svg",
    'command' => 'make bench-http',
];
$flags = ['smoke' => false, 'no-report' => false, 'report-only' => false];
$usage = "Usage: php bench/http/run.php [--smoke] [--no-report] [--report-only] [--duration=S] [--warmup=S] [--connections=N,N]\n"
    . "         [--threads=N] [--timeout=S] [--rounds=N] [--servers=A,B] [--json=FILE] [--doc=FILE] [--svg=FILE] [--command=TEXT]\n"
    . "  --rounds=N     measure every server, route and connection count N times, the servers in turn; keep the best\n"
    . "  --smoke        1 s runs, 100 connections, nexus + bare-loop only, results in bench/results/http-smoke.json, no report\n"
    . "  --no-report    do not rewrite docs/performance.md and the chart\n"
    . "  --report-only  no measuring: rewrite the report from the --json file\n"
    . 'Servers: ' . implode(', ', ServerLauncher::ALL) . "\nDefaults:\n"
    . implode('', array_map(static fn(string $k, string $v): string => "  --{$k}={$v}\n", array_keys($settings), $settings))
    . "Needs wrk, and for nginx+php-fpm also nginx and php-fpm8.2 (Debian: apt-get install -y wrk nginx php8.2-fpm).\n";

[$flags, $given] = CommandLine::parse(array_slice($argv, 1), $flags, $settings, $usage);
$settings = [...$settings, ...$given];
if ($flags['smoke']) {
    $settings = [...$settings, 'duration' => '1', 'warmup' => '1', 'connections' => '100', 'rounds' => '1', 'servers' => ServerLauncher::NEXUS . ',' . ServerLauncher::BARE, 'json' => "{$root}/bench/results/http-smoke.json"];
    $flags['no-report'] = true;
}

$duration = (int) $settings['duration'];
$warmup = (int) $settings['warmup'];
$threads = (int) $settings['threads'];
$timeout = (int) $settings['timeout'];
$rounds = (int) $settings['rounds'];
$connectionCounts = array_map('intval', explode(',', $settings['connections']));
$servers = array_values(array_filter(explode(',', $settings['servers']), static fn(string $s): bool => $s !== ''));
foreach ([$duration, $threads, $timeout, $rounds, ...$connectionCounts] as $number) {
    if ($number < 1) {
        fwrite(STDERR, "--duration, --threads, --timeout, --rounds and --connections must be positive integers.\n");
        exit(2);
    }
}
if ($warmup < 0 || array_diff($servers, ServerLauncher::ALL) !== [] || $servers === []) {
    fwrite(STDERR, '--warmup must be >= 0 and --servers a list of: ' . implode(', ', ServerLauncher::ALL) . "\n");
    exit(2);
}

if ($flags['report-only']) {
    $found = array_filter(['wrk' => findTool('wrk'), 'nginx' => findTool('nginx'), 'php-fpm8.2' => findTool('php-fpm8.2')], static fn(?string $path): bool => $path !== null);
    exit(writeReport(readResults($settings['json']), $settings, toolVersions($found), [], $rounds) ? 0 : 1);
}

// ---- tools ------------------------------------------------------------------------------------

$tools = ['wrk' => findTool('wrk')];
if (in_array(ServerLauncher::NGINX_FPM, $servers, true)) {
    $tools['nginx'] = findTool('nginx');
    $tools['php-fpm8.2'] = findTool('php-fpm8.2');
}
$missing = array_keys(array_filter($tools, static fn(?string $path): bool => $path === null));
if ($missing !== []) {
    $packages = array_map(static fn(string $tool): string => $tool === 'php-fpm8.2' ? 'php8.2-fpm' : $tool, $missing);
    fwrite(STDERR, 'FAILED: bench-http — missing ' . implode(', ', $missing) . '. Install them (Debian): sudo apt-get install -y ' . implode(' ', $packages)
        . "\n(`make bench-http` does this itself when run as root.)\n");
    exit(1);
}
/** @var array<string, string> $tools */
$versions = toolVersions($tools);

// ---- run --------------------------------------------------------------------------------------

$tempDir = sys_get_temp_dir() . '/nexus-bench-http-' . bin2hex(random_bytes(4));
if (!mkdir($tempDir, 0o755)) {
    fwrite(STDERR, "Cannot create {$tempDir}.\n");
    exit(1);
}
/** @var array<string, RunningServer> $running */
$running = [];
/** @var ManagedProcess|null $wrkProcess */
$wrkProcess = null;
$cleanup = static function () use (&$running, &$wrkProcess, $tempDir): void {
    if ($wrkProcess instanceof ManagedProcess) {
        $wrkProcess->stop();
        $wrkProcess = null;
    }
    foreach (array_reverse($running) as $server) {
        $server->stop();
    }
    $running = [];
    Files::removeTree($tempDir);
};
$trackWrk = static function (?ManagedProcess $process) use (&$wrkProcess): void {
    $wrkProcess = $process;
};
register_shutdown_function($cleanup);
if (function_exists('pcntl_async_signals')) {
    pcntl_async_signals(true);
    foreach ([SIGINT, SIGTERM] as $signal) {
        pcntl_signal($signal, static function () use ($cleanup): void {
            fwrite(STDERR, "\nInterrupted: stopping the servers.\n");
            $cleanup();
            exit(130);
        });
    }
}

$jsonDirectory = dirname($settings['json']);
if (!is_dir($jsonDirectory) && !mkdir($jsonDirectory, 0o777, true)) {
    fwrite(STDERR, "Cannot create {$jsonDirectory}.\n");
    exit(1);
}
file_put_contents($settings['json'], '');
$launcher = new ServerLauncher($root, $tempDir, PHP_BINARY, $tools['nginx'] ?? 'nginx', $tools['php-fpm8.2'] ?? 'php-fpm8.2');
/** @var array<string, string> $skipped server => why it was not run */
$skipped = [];
if (in_array(ServerLauncher::WORKERMAN, $servers, true) && $launcher->peersDir() === null) {
    $skipped[ServerLauncher::WORKERMAN] = 'no ../shared/peers/workerman_server.php beside the checkout (or NEXUS_PEERS_DIR), so the Workerman targets cannot be checked in this run';
    progress('Note: Workerman skipped: ' . $skipped[ServerLauncher::WORKERMAN] . '.');
    $servers = array_values(array_diff($servers, [ServerLauncher::WORKERMAN]));
}
$measurements = [];
$failed = false;
$started = microtime(true);
progress(sprintf(
    'bench-http: %s; routes %s; %s connections; %d rounds of wrk -t%d -d%ds --latency --timeout %ds after a %d s warm-up; temp dir %s',
    implode(', ', $servers),
    implode(', ', array_keys(HttpReport::ROUTES)) . ' (nexus also ' . implode(', ', array_keys(HttpReport::NEXUS_ROUTES)) . ')',
    implode(' and ', $connectionCounts),
    $rounds,
    $threads,
    $duration,
    $timeout,
    $warmup,
    $tempDir,
));

try {
    // Every server runs from the start, and each measurement goes round all of them in turn
    // (the order reversed every other round), so that load from elsewhere on this shared machine
    // falls on all of them alike; each figure is the best of its rounds.
    foreach ($servers as $name) {
        progress("==> {$name}: starting");
        $server = $launcher->start($name);
        $running[$name] = $server;
        progress("    {$name} listens on 127.0.0.1:{$server->port} (pids " . implode(', ', $server->pids()) . ')' . ($name === ServerLauncher::NEXUS ? ': ' . nexusBanner($tempDir) : ''));
        checkRoutes($server);
        if ($warmup > 0) {
            foreach (routesOf($name) as $route) {
                progress("    warm-up {$route}: {$warmup} s at " . min($connectionCounts) . ' connections');
                runWrk($tools['wrk'], $threads, min($connectionCounts), $warmup, $timeout, "http://127.0.0.1:{$server->port}{$route}", $tempDir, $trackWrk);
            }
        }
    }
    /** @var array<string, Measurement> $best */
    $best = [];
    $allRoutes = array_keys([...HttpReport::ROUTES, ...HttpReport::NEXUS_ROUTES]);
    for ($round = 1; $round <= $rounds; ++$round) {
        progress("==> round {$round} of {$rounds}");
        $order = $round % 2 === 1 ? $servers : array_reverse($servers);
        foreach ($allRoutes as $route) {
            foreach ($connectionCounts as $connections) {
                foreach ($order as $name) {
                    if (!in_array($route, routesOf($name), true)) {
                        continue;
                    }
                    $server = $running[$name];
                    $before = $server->cpuSeconds();
                    $wallStart = microtime(true);
                    [$output, $wrkCpu] = runWrk($tools['wrk'], $threads, $connections, $duration, $timeout, "http://127.0.0.1:{$server->port}{$route}", $tempDir, $trackWrk);
                    $after = $server->cpuSeconds();
                    $wall = microtime(true) - $wallStart;
                    $crashed = $server->crashed();
                    if ($crashed !== null) {
                        throw new RuntimeException("{$crashed->name} died during the run:\n" . $crashed->logTail());
                    }
                    $m = new Measurement($name, $route, $connections, $threads, (float) $duration, WrkOutputParser::parse($output), $wrkCpu, $before === null || $after === null ? null : $after - $before, $wall);
                    $key = "{$name} {$route} {$connections}";
                    if (!isset($best[$key]) || $m->wrk->rps > $best[$key]->wrk->rps) {
                        $best[$key] = $m;
                    }
                    progress(sprintf(
                        '    %-13s %-12s c=%-5d %10s RPS  avg %s  p99 %s  max %s  errors %d  timeouts %d  non-2xx %d  wrk CPU %s  server CPU %s',
                        $name,
                        $route,
                        $connections,
                        number_format($m->wrk->rps, 0, '.', ','),
                        fmtMs($m->wrk->avgMs),
                        $m->wrk->p99Ms === null ? '—' : fmtMs($m->wrk->p99Ms),
                        fmtMs($m->wrk->maxMs),
                        $m->wrk->errors(),
                        $m->wrk->timeouts,
                        $m->wrk->non2xx,
                        $m->wrkCpuShare() === null ? '—' : sprintf('%.2f cores', $m->wrkCpuShare()),
                        $m->serverCpuShare() === null ? '—' : sprintf('%.2f cores', $m->serverCpuShare()),
                    ));
                }
            }
        }
    }
    // The report's order: by server, then route, then connections.
    foreach ($servers as $name) {
        foreach (routesOf($name) as $route) {
            foreach ($connectionCounts as $connections) {
                $m = $best["{$name} {$route} {$connections}"] ?? null;
                if ($m !== null) {
                    $measurements[] = $m;
                    file_put_contents($settings['json'], json_encode($m->toArray(), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES) . "\n", FILE_APPEND);
                }
            }
        }
    }
} catch (Throwable $e) {
    fwrite(STDERR, 'FAILED: bench-http — ' . $e->getMessage() . "\n");
    $failed = true;
} finally {
    $cleanup();
}

if ($measurements !== []) {
    echo renderTable(new HttpReport($measurements, $skipped, $rounds), $measurements);
}
progress(sprintf('bench-http: %d runs in %.0f s; JSON lines in %s', count($measurements), microtime(true) - $started, $settings['json']));
if ($failed) {
    exit(1);
}
if (!$flags['no-report'] && !writeReport($measurements, $settings, $versions, $skipped, $rounds)) {
    exit(1);
}
exit(0);

// ---- helpers ----------------------------------------------------------------------------------

/**
 * The routes $server is measured on: Nexus also on the routes only it serves.
 *
 * @return list<string>
 */
function routesOf(string $server): array
{
    $routes = array_keys(HttpReport::ROUTES);

    return $server === ServerLauncher::NEXUS ? [...$routes, ...array_keys(HttpReport::NEXUS_ROUTES)] : $routes;
}

function progress(string $line): void
{
    fwrite(STDERR, $line . "\n");
}

function fmtMs(float $ms): string
{
    return $ms >= 1000.0 ? sprintf('%.2fs', $ms / 1000.0) : sprintf('%.2fms', $ms);
}

function findTool(string $name): ?string
{
    $path = getenv('PATH');
    $directories = [...explode(':', is_string($path) ? $path : ''), '/usr/sbin', '/sbin', '/usr/local/sbin'];
    foreach ($directories as $directory) {
        if ($directory !== '' && is_file("{$directory}/{$name}") && is_executable("{$directory}/{$name}")) {
            return "{$directory}/{$name}";
        }
    }

    return null;
}

/**
 * @param array<string, string> $tools
 *
 * @return array<string, string>
 */
function toolVersions(array $tools): array
{
    $versions = [];
    foreach ($tools as $name => $path) {
        $output = (string) shell_exec(escapeshellarg($path) . ' -v' . ' 2>&1');
        $first = trim(explode("\n", trim($output))[0]);
        $versions[$name] = match (true) {
            preg_match('/wrk (\S+)/', $first, $m) === 1, preg_match('/nginx\/(\S+)/', $first, $m) === 1, preg_match('/^PHP (\S+)/', $first, $m) === 1 => $m[1],
            default => $first,
        };
    }

    return $versions;
}

/**
 * Runs wrk (with the file limit raised for 1,000 connections) and returns its output and the CPU
 * seconds it used (bash's `times` after it: the children's user + system). $track is told the wrk
 * process while it runs (then null), so that an interrupt can stop it; the wait polls, so signals
 * get handled.
 *
 * @param Closure(?ManagedProcess): void $track
 *
 * @return array{string, float|null}
 */
function runWrk(string $wrk, int $threads, int $connections, int $seconds, int $timeout, string $url, string $tempDir, Closure $track): array
{
    $script = 'ulimit -n 65535 2>/dev/null || ulimit -n 8192 2>/dev/null || true; '
        . 'if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $(( $2 + 64 )) ]; then echo "ulimit -n is $(ulimit -n): too low for $2 connections" >&2; exit 3; fi; '
        . 'wrk="$1"; shift 2; "$wrk" "$@" & child=$!; trap \'kill $child 2>/dev/null\' TERM INT; '
        . 'wait $child; rc=$?; wait $child 2>/dev/null; times; exit $rc';
    $log = "{$tempDir}/wrk.log";
    @unlink($log);
    $process = new ManagedProcess(
        'wrk',
        ['bash', '-c', $script, 'wrk-run', $wrk, (string) $connections, '-t' . $threads, '-c' . $connections, '-d' . $seconds . 's', '--latency', '--timeout', $timeout . 's', $url],
        $log,
    );
    $track($process);
    while ($process->running()) {
        usleep(50_000);
    }
    $status = $process->exitCode();
    $process->stop();
    $track(null);
    $output = (string) @file_get_contents($log);
    if ($status !== 0) {
        throw new RuntimeException("wrk exited with {$status}: " . trim($output));
    }
    $cpu = null;
    if (preg_match_all('/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/m', $output, $times, PREG_SET_ORDER) >= 2) {
        $children = $times[count($times) - 1];
        $cpu = (int) $children[1] * 60 + (float) $children[2] + (int) $children[3] * 60 + (float) $children[4];
    }

    return [$output, $cpu];
}

/**
 * Fails unless the server answers both routes as the demo app does (the bare loop answers "Hello,
 * world!" to everything).
 */
function checkRoutes(RunningServer $server): void
{
    $expected = ['/' => 'Hello, world!', '/hello/wrk' => '{"message":"Hello, wrk!"}'];
    foreach ($expected as $path => $body) {
        if ($server->name === ServerLauncher::BARE) {
            $body = 'Hello, world!';
        }
        $response = HttpProbe::get($server->port, $path);
        if ($response === null || $response['status'] !== 200 || $response['body'] !== $body) {
            throw new RuntimeException(sprintf(
                '%s answered GET %s with %s, expected 200 "%s".',
                $server->name,
                $path,
                $response === null ? 'nothing' : $response['status'] . ' "' . substr($response['body'], 0, 200) . '"',
                $body,
            ));
        }
    }
}

function nexusBanner(string $tempDir): string
{
    $log = (string) @file_get_contents("{$tempDir}/nexus.log");
    foreach (explode("\n", $log) as $line) {
        if (str_contains($line, 'Nexus is serving')) {
            return trim($line);
        }
    }

    return '(no banner)';
}

/**
 * @param list<Measurement> $measurements
 */
function renderTable(HttpReport $report, array $measurements): string
{
    $rows = [['server', 'route', 'conns', 'RPS', 'x bare', 'avg', 'stddev', 'p99', 'max', 'errors', 'timeouts', 'non-2xx', 'wrk CPU', 'server CPU']];
    foreach ($measurements as $m) {
        $ratio = $report->ratio($m);
        $rows[] = [
            $m->server,
            HttpReport::label($m->route),
            (string) $m->connections,
            number_format($m->wrk->rps, 0, '.', ','),
            $ratio === null ? '-' : sprintf('%.2f', $ratio),
            fmtMs($m->wrk->avgMs),
            fmtMs($m->wrk->stddevMs),
            $m->wrk->p99Ms === null ? '-' : fmtMs($m->wrk->p99Ms),
            fmtMs($m->wrk->maxMs),
            (string) $m->wrk->errors(),
            (string) $m->wrk->timeouts,
            (string) $m->wrk->non2xx,
            $m->wrkCpuShare() === null ? '-' : sprintf('%.2f', $m->wrkCpuShare()),
            $m->serverCpuShare() === null ? '-' : sprintf('%.2f', $m->serverCpuShare()),
        ];
    }
    $widths = [];
    foreach ($rows as $row) {
        foreach ($row as $i => $cell) {
            $widths[$i] = max($widths[$i] ?? 0, mb_strlen($cell));
        }
    }
    $out = '';
    foreach ($rows as $row) {
        $cells = [];
        foreach ($row as $i => $cell) {
            $pad = str_repeat(' ', ($widths[$i] ?? 0) - mb_strlen($cell));
            $cells[] = $i < 2 ? $cell . $pad : $pad . $cell;
        }
        $out .= rtrim(implode('  ', $cells)) . "\n";
    }
    $out .= "(CPU columns: CPU seconds / wall time of the wrk run, 1.00 = one core; the machine has 2.)\n\nTargets (nexus):\n";
    foreach ($report->targets() as [$target, $measured, $ok]) {
        $out .= sprintf("  [%s] %s: %s\n", match ($ok) {
            true => ' ok ',
            false => 'MISS',
            null => 'n/a ',
        }, str_replace('`', '', $target), $measured);
    }

    return $out . HttpReport::UNAVAILABLE . "\n";
}

/**
 * @return list<Measurement>
 */
function readResults(string $file): array
{
    $text = @file_get_contents($file);
    if (!is_string($text)) {
        fwrite(STDERR, "Cannot read {$file}; run make bench-http first.\n");
        exit(1);
    }
    $measurements = [];
    foreach (explode("\n", trim($text)) as $line) {
        if (trim($line) !== '') {
            $row = json_decode($line, true, 8, JSON_THROW_ON_ERROR);
            if (!is_array($row)) {
                throw new UnexpectedValueException("{$file}: a line is not a JSON object.");
            }
            $measurements[] = Measurement::fromArray($row);
        }
    }

    return $measurements;
}

/**
 * @param list<Measurement>     $measurements
 * @param array<string, string> $settings
 * @param array<string, string> $versions
 * @param array<string, string> $skipped  server => why it was not run
 */
function writeReport(array $measurements, array $settings, array $versions = [], array $skipped = [], int $rounds = 1): bool
{
    if ($measurements === []) {
        fwrite(STDERR, "No measurements: nothing to report.\n");

        return false;
    }
    $report = new HttpReport($measurements, $skipped, $rounds);
    $chartPath = relativeTo(dirname($settings['doc']), $settings['svg']);
    $section = $report->section(Environment::detect(), $settings['command'], date('Y-m-d H:i T'), $chartPath, $versions);
    $error = ReportFiles::update($settings['doc'], $settings['svg'], static fn(string $document): string => HttpReport::replaceSection($document, $section), $report->chart());
    if ($error !== null) {
        fwrite(STDERR, "{$error}\n");

        return false;
    }
    progress("Updated {$settings['doc']} and {$settings['svg']}.");

    return true;
}

function relativeTo(string $from, string $to): string
{
    $fromReal = realpath($from);
    $toReal = realpath(dirname($to));
    if ($fromReal === false || $toReal === false) {
        return $to;
    }
    $fromParts = array_values(array_filter(explode('/', $fromReal), static fn(string $p): bool => $p !== ''));
    $toParts = [...array_values(array_filter(explode('/', $toReal), static fn(string $p): bool => $p !== '')), basename($to)];
    $common = 0;
    while ($common < count($fromParts) && $common < count($toParts) - 1 && $fromParts[$common] === $toParts[$common]) {
        ++$common;
    }

    return str_repeat('../', count($fromParts) - $common) . implode('/', array_slice($toParts, $common));
}
