<?php

declare(strict_types=1);

/*
 * `make bench-cluster`: the cluster measured with real node processes on this machine, over TCP
 * loopback, against a real etcd started for the run (Debian etcd-server, installed when missing).
 *   1. messaging: node A of 2 workers and node B of 1 worker; A's worker 0 tells and asks an actor
 *      on itself, on A's other worker (Unix socket) and on B's worker (TCP), in one run.
 *   2. the world benchmark (sender actors on every slot, 256 order shards placed over the slots)
 *      on 2 nodes of 1 worker, on 1 node of 2 workers in a cluster, and on a plain pool of 2
 *      workers (no cluster): the same two cores each time.
 *   3. moves: 10,000 active entities on nodes A and B (1 worker each); node C joins (time until
 *      every entity answers again, from the view with C), then node B is killed with SIGKILL
 *      (time until every entity that lived on B answers from its new owner; lease TTL 5 s).
 * Progress on stderr, a table on stdout, JSON in bench/results/cluster.json, the bench:cluster
 * sections of docs/performance.md and docs/cluster.md and docs/img/cluster-bench.svg.
 */

use Nexus\Bench\Cluster\BenchNodes;
use Nexus\Bench\Cluster\ClusterReport;
use Nexus\Bench\Environment;
use Nexus\Bench\Files;
use Nexus\Tests\Support\EtcdServer;
use Nexus\Worker\PoolOptions;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$root = dirname(__DIR__, 2);
$quick = in_array('--quick', $argv, true) || in_array('--smoke', $argv, true);
$smoke = in_array('--smoke', $argv, true);
$tlsCompare = in_array('--tls', $argv, true);
$noReport = $smoke || $tlsCompare || in_array('--no-report', $argv, true);
$json = "{$root}/bench/results/" . ($smoke ? 'cluster-smoke.json' : ($tlsCompare ? 'cluster-tls.json' : 'cluster.json'));
foreach ($argv as $argument) {
    if (str_starts_with($argument, '--json=')) {
        $json = substr($argument, 7);
    } elseif ($argument === '--help' || $argument === '-h') {
        echo "Usage: php bench/cluster/run.php [--quick] [--smoke] [--no-report] [--tls] [--json=FILE]\n"
            . "  --quick  smaller counts, one world run per case\n  --smoke  tiny counts, no report (CI)\n"
            . "  --tls    only the messaging case, over plain TCP and over TLS, interleaved (bench/results/cluster-tls.json)\n";
        exit(0);
    }
}
$messages = $smoke ? 2_000 : ($quick ? 100_000 : 400_000);
$asks = $smoke ? 200 : ($quick ? 5_000 : 20_000);
$orders = $smoke ? 2_000 : ($quick ? 50_000 : 200_000);
$entities = $smoke ? 500 : 10_000;
$why = null;
if (EtcdServer::binary($why) === null) {
    fwrite(STDERR, "bench-cluster: {$why}\n");
    exit(1);
}
$tempDir = sys_get_temp_dir() . '/nexus-bench-cluster-' . getmypid();
@mkdir($tempDir, 0o700, true);
$etcd = EtcdServer::start();
$nodes = new BenchNodes($root, $tempDir, $etcd, Environment::jitEnabled());
$results = ['date' => gmdate('Y-m-d'), 'php' => PHP_VERSION, 'jit' => Environment::jitEnabled(), 'cores' => PoolOptions::cores(), 'load_before' => (sys_getloadavg() ?: [0.0])[0]];
$status = 0;
try {
    if ($tlsCompare) {
        $certs = "{$tempDir}/certs";
        @mkdir($certs, 0o700);
        $openssl = static function (string $args) use ($certs): void {
            exec('cd ' . escapeshellarg($certs) . ' && openssl ' . $args . ' 2>&1', $output, $code);
            if ($code !== 0) {
                throw new RuntimeException('openssl failed: ' . implode("\n", $output));
            }
        };
        file_put_contents("{$certs}/node.ext", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
        $openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days 2 -subj '/CN=bench CA'");
        $openssl("req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout node.key -out node.csr -subj '/CN=node'");
        $openssl('x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out node.pem -days 2 -extfile node.ext');
        for ($round = 1; $round <= ($quick ? 1 : 3); ++$round) {
            foreach (['plain' => false, 'tls' => $certs] as $case => $tls) {
                putenv('NEXUS_BENCH_CLUSTER_TLS' . ($tls === false ? '' : "={$tls}"));
                fwrite(STDERR, "bench-cluster --tls: messaging over {$case}, run {$round}: {$messages} messages, {$asks} asks\n");
                $results["messaging_{$case}"][] = $nodes->run('messaging', [2, 1], true, $messages, $asks, $orders);
            }
        }
        putenv('NEXUS_BENCH_CLUSTER_TLS');
        foreach (['plain', 'tls'] as $case) {
            $runs = $results["messaging_{$case}"];
            printf("%-5s cross-node tell msgs/s: %s; ask p50 µs: %s\n", $case, implode(', ', array_map(static fn(array $r): string => number_format(is_numeric($r['node_msgs_per_s'] ?? null) ? (float) $r['node_msgs_per_s'] : 0.0), $runs)), implode(', ', array_map(static fn(array $r): string => number_format(is_numeric($r['node_ask_p50_us'] ?? null) ? (float) $r['node_ask_p50_us'] : 0.0, 1), $runs)));
        }
        @mkdir(dirname($json), 0o755, true);
        file_put_contents($json, json_encode($results, JSON_PRETTY_PRINT | JSON_THROW_ON_ERROR) . "\n");
        fwrite(STDERR, "bench-cluster: results in {$json}\n");
    } else {
        fwrite(STDERR, "bench-cluster: messaging from node A (2 workers) to itself, its other worker and node B (1 worker): {$messages} messages, {$asks} asks\n");
        $results['messaging'] = $nodes->run('messaging', [2, 1], true, $messages, $asks, $orders);
        // The tracing JIT sometimes settles on a slower trace for a whole process: each world case
        // runs in fresh processes, interleaved, and reports its best run (all runs are in the JSON).
        $worldCases = [
            'world_nodes_2x1' => ['2 nodes of 1 worker', [1, 1], true],
            'world_node_1x2' => ['1 node of 2 workers in a cluster', [2], true],
            'world_pool_2' => ['a pool of 2 workers, no cluster', [2], false],
        ];
        $worldRuns = [];
        for ($round = 1; $round <= ($quick ? 1 : 3); ++$round) {
            foreach ($worldCases as $key => [$label, $layout, $cluster]) {
                fwrite(STDERR, "bench-cluster: world on {$label}, {$orders} orders per worker, run {$round}\n");
                $worldRuns[$key][] = $nodes->run('world', $layout, $cluster, $messages, $asks, $orders);
            }
        }
        foreach ($worldRuns as $key => $runs) {
            usort($runs, static fn(array $a, array $b): int => ($b['orders_per_s'] ?? 0) <=> ($a['orders_per_s'] ?? 0));
            $results[$key] = $runs[0] + ['runs_orders_per_s' => array_map(static fn(array $run): mixed => $run['orders_per_s'] ?? null, $runs)];
        }
        fwrite(STDERR, "bench-cluster: moves: {$entities} active entities on nodes A and B, node C joins, node B is killed (kill -9)\n");
        $results['moves'] = $nodes->moves($entities) + ['lease_ttl_s' => 5];
    }
} catch (RuntimeException $e) {
    fwrite(STDERR, "bench-cluster: {$e->getMessage()}\n");
    $status = 1;
} finally {
    $etcd->destroy();
    Files::removeTree($tempDir);
}
if ($status !== 0 || $tlsCompare) {
    exit($status);
}

$report = new ClusterReport($results);
echo $report->table();
@mkdir(dirname($json), 0o755, true);
file_put_contents($json, json_encode($results, JSON_PRETTY_PRINT | JSON_THROW_ON_ERROR) . "\n");
fwrite(STDERR, "bench-cluster: results in {$json}\n");
if (!$noReport) {
    $command = 'make bench-cluster' . ($quick ? ' QUICK=1' : '');
    $error = $report->writeInto("{$root}/docs/performance.md", "{$root}/docs/cluster.md", "{$root}/docs/img/cluster-bench.svg", $command);
    if ($error !== null) {
        fwrite(STDERR, "bench-cluster: {$error}\n");
        exit(1);
    }
    fwrite(STDERR, "bench-cluster: docs/performance.md and docs/cluster.md (bench:cluster) and docs/img/cluster-bench.svg updated\n");
}
