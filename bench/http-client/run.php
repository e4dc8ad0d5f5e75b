<?php

declare(strict_types=1);

/*
 * `make bench-http-client`: the Nexus HTTP client, curl_multi (ext-curl) and Guzzle's pooled curl
 * handler side by side against nginx serving a small static file on loopback: requests/s and
 * latency with 64 requests in flight, and the cost of one request on a warm connection. A table on
 * stdout, progress on stderr, JSON lines in bench/results/http-client.json, the bench:http-client
 * section of docs/performance.md and docs/img/http-client-bench.svg.
 * php bench/http-client/run.php --help
 */

use Nexus\Bench\CommandLine;
use Nexus\Bench\Environment;
use Nexus\Bench\Files;
use Nexus\Bench\Http\RunningServer;
use Nexus\Bench\HttpClient\ClientRun;
use Nexus\Bench\HttpClient\HttpClientReport;
use Nexus\Bench\HttpClient\StaticNginx;
use Nexus\Bench\ReportFiles;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$settings = [
    'duration' => '5',
    'warm-duration' => '3',
    'warmup' => '1',
    'concurrency' => '64',
    'rounds' => '3',
    'clients' => implode(',', array_keys(HttpClientReport::CLIENTS)),
    'json' => "{$root}/bench/results/http-client.json",
    'doc' => "{$root}/docs/performance.md",
    'svg' => "{$root}/docs/img/http-client-bench.svg",
    'command' => 'make bench-http-client',
];
$flags = ['smoke' => false, 'no-report' => false, 'report-only' => false];
$usage = "Usage: php bench/http-client/run.php [--smoke] [--no-report] [--report-only] [--duration=S] [--warm-duration=S] [--warmup=S]\n"
    . "         [--concurrency=N] [--rounds=N] [--clients=A,B] [--json=FILE] [--doc=FILE] [--svg=FILE] [--command=TEXT]\n"
    . "  --smoke        1 s runs, one round, results in bench/results/http-client-smoke.json, no report\n"
    . "  --no-report    do not rewrite docs/performance.md and the chart\n"
    . "  --report-only  no measuring: rewrite the report from the --json file\n"
    . 'Clients: ' . implode(', ', array_keys(HttpClientReport::CLIENTS)) . "\nDefaults:\n"
    . implode('', array_map(static fn(string $k, string $v): string => "  --{$k}={$v}\n", array_keys($settings), $settings))
    . "Needs nginx and ext-curl (Debian: apt-get install -y nginx php8.2-curl) and Guzzle (composer install: a dev dependency).\n";
[$flags, $given] = CommandLine::parse(array_slice($argv, 1), $flags, $settings, $usage);
$settings = [...$settings, ...$given];
if ($flags['smoke']) {
    $settings = [...$settings, 'duration' => '1', 'warm-duration' => '1', 'warmup' => '0.5', 'rounds' => '1', 'json' => "{$root}/bench/results/http-client-smoke.json", ...$given];
    $flags['no-report'] = true;
}
$clients = array_values(array_filter(explode(',', $settings['clients']), static fn(string $c): bool => $c !== ''));
$rounds = (int) $settings['rounds'];
if ($clients === [] || array_diff($clients, array_keys(HttpClientReport::CLIENTS)) !== [] || $rounds < 1 || (float) $settings['duration'] <= 0.0 || (int) $settings['concurrency'] < 1) {
    fwrite(STDERR, $usage);
    exit(2);
}

$nginx = null;
foreach (['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'] as $path) {
    if (is_executable($path)) {
        $nginx = $path;

        break;
    }
}
$versions = [
    'nginx' => $nginx === null ? '?' : (preg_match('~nginx/(\S+)~', (string) shell_exec(escapeshellarg($nginx) . ' -v 2>&1'), $m) === 1 ? $m[1] : '?'),
    'curl' => function_exists('curl_version') && is_array($curl = curl_version()) && is_string($curl['version'] ?? null) ? $curl['version'] : '?',
    'guzzle' => class_exists(Composer\InstalledVersions::class) && Composer\InstalledVersions::isInstalled('guzzlehttp/guzzle') ? (string) Composer\InstalledVersions::getPrettyVersion('guzzlehttp/guzzle') : '?',
];

if ($flags['report-only']) {
    exit(writeClientReport(readRuns($settings['json']), $settings, $versions, $rounds) ? 0 : 1);
}
if ($nginx === null || !function_exists('curl_multi_init') || !class_exists(GuzzleHttp\Client::class)) {
    fwrite(STDERR, "FAILED: bench-http-client needs nginx, ext-curl and Guzzle. Debian: apt-get install -y nginx php8.2-curl; then composer install.\n");
    exit(1);
}

$tempDir = sys_get_temp_dir() . '/nexus-bench-http-client-' . bin2hex(random_bytes(4));
/** @var RunningServer|null $server */
$server = null;
$cleanup = static function () use (&$server, $tempDir): void {
    if ($server instanceof RunningServer) {
        $server->stop();
        $server = null;
    }
    Files::removeTree($tempDir);
};
register_shutdown_function($cleanup);

$jsonDirectory = dirname($settings['json']);
if (!is_dir($jsonDirectory) && !mkdir($jsonDirectory, 0o777, true)) {
    fwrite(STDERR, "Cannot create {$jsonDirectory}.\n");
    exit(1);
}
file_put_contents($settings['json'], '');
$runs = [];
$failed = false;
$started = microtime(true);
try {
    $server = StaticNginx::start($nginx, $tempDir);
    $url = "http://127.0.0.1:{$server->port}" . StaticNginx::PATH;
    clientBenchProgress(sprintf('bench-http-client: %s against %s; %d rounds; load: %s in flight for %s s, warm: 1 in flight for %s s, each after a %s s warm-up', implode(', ', $clients), $url, $rounds, $settings['concurrency'], $settings['duration'], $settings['warm-duration'], $settings['warmup']));
    for ($round = 1; $round <= $rounds; ++$round) {
        foreach ([ClientRun::LOAD, ClientRun::WARM] as $mode) {
            foreach ($clients as $client) {
                $run = runClient($root, $server, $client, $mode, $round, $url, $mode === ClientRun::LOAD ? (int) $settings['concurrency'] : 1, $mode === ClientRun::LOAD ? $settings['duration'] : $settings['warm-duration'], $settings['warmup']);
                $runs[] = $run;
                file_put_contents($settings['json'], json_encode($run->toArray(), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES) . "\n", FILE_APPEND);
                clientBenchProgress(sprintf('    round %d %-4s %-10s %9s req/s  p50 %8.1f µs  p99 %8.1f µs  mean %8.1f µs  client CPU %6.1f µs/req  nginx CPU %s  errors %d', $round, $mode, $client, number_format($run->rps), $run->p50Us, $run->p99Us, $run->meanUs, $run->clientCpuUs(), $run->serverCpuUs() === null ? '—' : sprintf('%.1f µs/req', $run->serverCpuUs()), $run->errors));
            }
        }
    }
} catch (Throwable $e) {
    fwrite(STDERR, 'FAILED: bench-http-client — ' . $e->getMessage() . "\n");
    $failed = true;
} finally {
    $cleanup();
}

if ($runs !== []) {
    $report = new HttpClientReport($runs);
    foreach ([ClientRun::LOAD, ClientRun::WARM] as $mode) {
        foreach (array_keys(HttpClientReport::CLIENTS) as $client) {
            $run = $report->median($client, $mode);
            if ($run !== null) {
                printf("%-5s %-10s %9s req/s  p50 %8.1f µs  p99 %8.1f µs  mean %8.1f µs  client CPU %6.1f µs/req  nginx CPU %s\n", $mode, $client, number_format($run->rps), $run->p50Us, $run->p99Us, $run->meanUs, $run->clientCpuUs(), $run->serverCpuUs() === null ? '—' : sprintf('%.1f µs/req', $run->serverCpuUs()));
            }
        }
    }
    foreach ($report->targets() as [$target, $measured, $ok]) {
        printf("  [%s] %s: %s\n", match ($ok) {
            true => ' ok ', false => 'MISS', null => 'n/a ',
        }, $target, $measured);
    }
}
clientBenchProgress(sprintf('bench-http-client: %d runs in %.0f s; JSON lines in %s', count($runs), microtime(true) - $started, $settings['json']));
if ($failed) {
    exit(1);
}
if (!$flags['no-report'] && !writeClientReport($runs, $settings, $versions, $rounds)) {
    exit(1);
}
exit(0);

function clientBenchProgress(string $line): void
{
    fwrite(STDERR, $line . "\n");
}

/**
 * Runs bench/http-client/client.php in a process of its own (OPcache + tracing JIT) and measures
 * nginx's CPU over its life.
 */
function runClient(string $root, RunningServer $server, string $client, string $mode, int $round, string $url, int $concurrency, string $duration, string $warmup): ClientRun
{
    $command = [PHP_BINARY, '-d', 'opcache.enable_cli=1', '-d', 'opcache.jit=tracing', '-d', 'opcache.jit_buffer_size=64M', "{$root}/bench/http-client/client.php",
        "--client={$client}", "--url={$url}", "--concurrency={$concurrency}", "--duration={$duration}", "--warmup={$warmup}", '--expect=' . StaticNginx::BODY];
    $before = $server->cpuSeconds();
    $process = proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    if (!is_resource($process)) {
        throw new RuntimeException("Cannot start the {$client} client.");
    }
    $output = (string) stream_get_contents($pipes[1]);
    $errors = (string) stream_get_contents($pipes[2]);
    fclose($pipes[1]);
    fclose($pipes[2]);
    $status = proc_close($process);
    $after = $server->cpuSeconds();
    $crashed = $server->crashed();
    if ($crashed !== null) {
        throw new RuntimeException("nginx died during the {$client} run:\n" . $crashed->logTail());
    }
    $row = json_decode(trim($output), true);
    if ($status !== 0 || !is_array($row)) {
        throw new RuntimeException("The {$client} client failed (exit {$status}):\n" . trim($errors . "\n" . $output));
    }

    return ClientRun::fromArray([...$row, 'mode' => $mode, 'round' => $round, 'server_cpu_s' => $before === null || $after === null ? null : $after - $before]);
}

/**
 * @return list<ClientRun>
 */
function readRuns(string $file): array
{
    $text = @file_get_contents($file);
    if (!is_string($text)) {
        fwrite(STDERR, "Cannot read {$file}; run make bench-http-client first.\n");
        exit(1);
    }
    $runs = [];
    foreach (explode("\n", trim($text)) as $line) {
        if (trim($line) !== '') {
            $row = json_decode($line, true, 8, JSON_THROW_ON_ERROR);
            if (!is_array($row)) {
                throw new UnexpectedValueException("{$file}: a line is not a JSON object.");
            }
            $runs[] = ClientRun::fromArray($row);
        }
    }

    return $runs;
}

/**
 * @param list<ClientRun>       $runs
 * @param array<string, string> $settings
 * @param array<string, string> $versions
 */
function writeClientReport(array $runs, array $settings, array $versions, int $rounds): bool
{
    if ($runs === []) {
        fwrite(STDERR, "No runs: nothing to report.\n");

        return false;
    }
    $report = new HttpClientReport($runs);
    $chart = 'img/' . basename($settings['svg']);
    $section = $report->section(Environment::detect(), $settings['command'], date('Y-m-d H:i T'), $chart, $versions['nginx'], $versions['curl'], $versions['guzzle'], max(array_map(static fn(ClientRun $r): int => $r->round, $runs)));
    $error = ReportFiles::update($settings['doc'], $settings['svg'], static fn(string $document): string => HttpClientReport::replaceSection($document, $section), $report->chart());
    if ($error !== null) {
        fwrite(STDERR, "{$error}\n");

        return false;
    }
    clientBenchProgress("Updated {$settings['doc']} and {$settings['svg']}.");

    return true;
}
