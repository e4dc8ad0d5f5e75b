<?php

declare(strict_types=1);

/*
 * `make bench-workers`: the worker pool measured with real processes on this machine.
 *   1. messaging (2 workers): cross-worker throughput per worker pair, cross-worker ask round trip,
 *      fan-out of 5,000 messages to every worker; each beside the same thing within one worker.
 *   2. the world benchmark with 1 and with 2 workers: sender actors on every worker submit orders
 *      to 16 stateful order shards spread over the workers.
 *   3. HTTP: wrk against `nexus serve --workers=1` and `--workers=2`, on GET / (wrk-bound on two
 *      cores) and on GET /work (about 100 µs of CPU per request: server-bound).
 * Progress on stderr, a table on stdout, JSON in bench/results/workers.json, the bench:workers
 * section of docs/performance.md and docs/img/workers-bench.svg.
 */

use Nexus\Bench\Files;
use Nexus\Bench\Workers\BenchWorker;
use Nexus\Bench\Workers\HttpScaling;
use Nexus\Bench\Workers\RawPingPong;
use Nexus\Bench\Workers\WorkersReport;
use Nexus\Log\StderrLogger;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\WorkerPool;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$quick = in_array('--quick', $argv, true) || in_array('--smoke', $argv, true);
$smoke = in_array('--smoke', $argv, true);
$noReport = $smoke || in_array('--no-report', $argv, true);
$json = "{$root}/bench/results/" . ($smoke ? 'workers-smoke.json' : 'workers.json');
foreach ($argv as $argument) {
    if (str_starts_with($argument, '--json=')) {
        $json = substr($argument, 7);
    } elseif ($argument === '--help' || $argument === '-h') {
        echo "Usage: php bench/workers/run.php [--quick] [--smoke] [--no-report] [--json=FILE]\n"
            . "  --quick  smaller counts and 3 s wrk runs\n  --smoke  tiny counts, no HTTP, no report (CI)\n";
        exit(0);
    }
}
$messages = $smoke ? 2_000 : ($quick ? 100_000 : 400_000);
$asks = $smoke ? 200 : ($quick ? 5_000 : 20_000);
$orders = $smoke ? 2_000 : ($quick ? 50_000 : 200_000);
$tempDir = sys_get_temp_dir() . '/nexus-bench-workers-' . getmypid();
@mkdir($tempDir, 0o700, true);

/**
 * Runs a pool of $workers BenchWorkers in $mode and returns what worker 0 measured.
 *
 * @param 'messaging'|'world'|'world-local' $mode
 *
 * @return array<mixed>
 */
function pool(string $mode, int $workers, string $tempDir, int $messages, int $asks, int $orders): array
{
    $resultFile = "{$tempDir}/{$mode}-{$workers}.json";
    @unlink($resultFile);
    $pool = new WorkerPool(
        new BenchWorker($mode, $resultFile, $messages, $asks, $orders),
        new PoolOptions(workers: $workers, host: null, stopTimeout: 2.0, runtimeDir: $tempDir),
        new StderrLogger(),
    );
    $pool->run();
    $result = json_decode((string) @file_get_contents($resultFile), true);
    if (!is_array($result) || isset($result['error'])) {
        throw new RuntimeException("The {$mode} benchmark with {$workers} workers failed: " . json_encode($result));
    }

    return $result;
}

$results = ['date' => gmdate('Y-m-d'), 'php' => PHP_VERSION, 'jit' => Nexus\Bench\Environment::jitEnabled(), 'cores' => PoolOptions::cores()];
fwrite(STDERR, "bench-workers: the floor: a bare PHP ping-pong between two processes\n");
$results['raw_pingpong_us'] = RawPingPong::measure($smoke ? 500 : 20_000);
fwrite(STDERR, "bench-workers: messaging between 2 workers ({$messages} messages, {$asks} asks)\n");
$results['messaging'] = pool('messaging', 2, $tempDir, $messages, $asks, $orders);
// The tracing JIT sometimes settles on a slower trace for a whole process: each world case runs in
// fresh pools, three times, interleaved, and reports its best run (all runs are kept in the JSON).
$worldCases = ['world_1' => ['world', 1], 'world_2' => ['world', 2], 'world_local_2' => ['world-local', 2]];
$worldRuns = [];
for ($round = 1; $round <= ($smoke ? 1 : 3); ++$round) {
    foreach ($worldCases as $key => [$mode, $workers]) {
        fwrite(STDERR, "bench-workers: {$mode} with {$workers} worker(s), {$orders} orders per worker, run {$round}\n");
        $worldRuns[$key][] = pool($mode, $workers, $tempDir, $messages, $asks, $orders);
    }
}
foreach ($worldRuns as $key => $runs) {
    usort($runs, static fn(array $a, array $b): int => ($b['orders_per_s'] ?? 0) <=> ($a['orders_per_s'] ?? 0));
    $results[$key] = $runs[0] + ['runs_orders_per_s' => array_map(static fn(array $run): mixed => $run['orders_per_s'] ?? null, $runs)];
}
if (!$smoke) {
    $wrk = trim((string) shell_exec('command -v wrk'));
    if ($wrk === '') {
        fwrite(STDERR, "bench-workers: wrk not found (apt-get install -y wrk): HTTP scaling not measured\n");
    } else {
        $http = new HttpScaling($root, $tempDir, $wrk);
        foreach (['' => '/', '_work' => '/work'] as $suffix => $path) {
            foreach ([1, 2] as $workers) {
                fwrite(STDERR, "bench-workers: wrk -t1 -c100 GET {$path} against nexus serve --workers={$workers}\n");
                $results["http{$suffix}_{$workers}"] = $http->measure($workers, 100, $quick ? 3 : 5, $path);
            }
        }
    }
}
Files::removeTree($tempDir);

$report = new WorkersReport($results);
echo $report->table();
@mkdir(dirname($json), 0o755, true);
file_put_contents($json, json_encode($results, JSON_PRETTY_PRINT | JSON_THROW_ON_ERROR) . "\n");
fwrite(STDERR, "bench-workers: results in {$json}\n");
if (!$noReport) {
    $command = 'make bench-workers' . ($quick ? ' QUICK=1' : '');
    $error = $report->writeInto("{$root}/docs/performance.md", "{$root}/docs/img/workers-bench.svg", $command);
    if ($error !== null) {
        fwrite(STDERR, "bench-workers: {$error}\n");
        exit(1);
    }
    fwrite(STDERR, "bench-workers: docs/performance.md (bench:workers) and docs/img/workers-bench.svg updated\n");
}
