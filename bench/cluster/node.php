<?php

declare(strict_types=1);

/*
 * One node of the cluster benchmarks: a WorkerPool of BenchWorkers joined to a cluster.
 *
 *   php bench/cluster/node.php MODE NODE WORKERS ETCD PREFIX DATA_DIR RESULT_FILE EXPECT_SLOTS MESSAGES ASKS ORDERS
 *
 * The lowest slot of the cluster measures once every slot is in its view (BenchWorker), writes
 * RESULT_FILE and stops its node; the runner stops the others. ETCD '-': a plain pool (no
 * cluster), the one-node baseline.
 */

use Nexus\Bench\Workers\BenchWorker;
use Nexus\Cluster\ClusterNode;
use Nexus\Cluster\ClusterOptions;
use Nexus\Log\StderrLogger;
use Nexus\Persistence\StoreLocation;
use Nexus\Runtime\Loop;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\Transport\LinkTls;
use Nexus\Worker\WorkerPool;
use Psr\Log\LogLevel;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

if ($argc !== 12) {
    fwrite(STDERR, "Usage: php bench/cluster/node.php MODE NODE WORKERS ETCD PREFIX DATA_DIR RESULT_FILE EXPECT_SLOTS MESSAGES ASKS ORDERS\n");
    exit(2);
}
[, $mode, $node, $workers, $etcd, $prefix, $dataDir, $resultFile, $expect, $messages, $asks, $orders] = $argv;
if (!in_array($mode, ['messaging', 'world', 'moves'], true)) {
    fwrite(STDERR, "MODE is messaging, world or moves, got {$mode}\n");
    exit(2);
}
$runtime = sys_get_temp_dir() . '/nxc-' . getmypid();
@mkdir($runtime, 0o700, true);
$logger = new StderrLogger(LogLevel::WARNING);
// NEXUS_BENCH_CLUSTER_TLS=DIR (run.php --tls): TLS on the links between nodes, DIR/node.pem,
// DIR/node.key and DIR/ca.pem.
$tlsDir = getenv('NEXUS_BENCH_CLUSTER_TLS');
$tls = \is_string($tlsDir) && $tlsDir !== '' ? new LinkTls("{$tlsDir}/node.pem", "{$tlsDir}/node.key", "{$tlsDir}/ca.pem") : null;
$cluster = $etcd === '-' ? null : new ClusterNode(
    new Loop(),
    new ClusterOptions($etcd, $node, '127.0.0.1', 0, str_repeat('bench-cluster-secret', 2), $prefix, 5, tls: $tls),
    StoreLocation::fromOptions($dataDir, null),
    $logger,
);
$pool = new WorkerPool(
    new BenchWorker($mode, $resultFile, (int) $messages, (int) $asks, (int) $orders, (int) $expect),
    new PoolOptions(workers: (int) $workers, host: null, stopTimeout: 2.0, runtimeDir: $runtime),
    $logger,
    $cluster,
);
$code = $pool->run();
@rmdir($runtime);
exit($code);
