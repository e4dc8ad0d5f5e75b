<?php

declare(strict_types=1);

/*
 * Workerman's WebSocket server doing the same echo as Nexus's GET /ws/echo, written as its README
 * writes a server, for `make bench-ws` only (Workerman is MIT, in ../shared/peers, not a
 * dependency). A text message "__memory" is answered with the worker's PHP heap in bytes after a
 * collection, for the idle-connection memory measurement.
 *
 *   php bench/ws/workerman-echo.php start PORT [WORKERS] [PEERS_DIR]
 */

use Workerman\Connection\TcpConnection;
use Workerman\Worker;

$port = (int) ($argv[2] ?? 8090);
$workers = max(1, (int) ($argv[3] ?? 1));
$broadcast = ($argv[4] ?? 'echo') === 'broadcast';
$peers = $argv[5] ?? '';
foreach ([$peers, dirname(__DIR__, 2) . '/../shared/peers', dirname(__DIR__, 2) . '/../../shared/peers', '/work/shared/peers'] as $candidate) {
    if ($candidate !== '' && is_file("{$candidate}/autoload.php")) {
        require "{$candidate}/autoload.php";
        break;
    }
}
if (!class_exists(Worker::class)) {
    fwrite(STDERR, "Workerman is not in ../shared/peers (give its folder as the 4th argument).\n");
    exit(1);
}

$worker = new Worker("websocket://127.0.0.1:{$port}");
$worker->count = $workers;
$worker->reusePort = true;
$worker->onMessage = static function (TcpConnection $connection, string $data) use ($worker, $broadcast): void {
    if ($data === '__memory') {
        gc_collect_cycles();
        $connection->send(memory_get_usage() . ' ' . getmypid());

        return;
    }
    if ($broadcast) {
        foreach ($worker->connections as $each) {
            $each->send($data);
        }

        return;
    }
    $connection->send($data);
};
Worker::$logFile = sys_get_temp_dir() . "/workerman-ws-{$port}.log";
Worker::$pidFile = sys_get_temp_dir() . "/workerman-ws-{$port}.pid";
Worker::$stdoutFile = '/dev/null';
$argv = [$argv[0], 'start'];
Worker::runAll();
