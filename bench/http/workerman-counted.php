<?php

declare(strict_types=1);

// The Workerman server of ../shared/peers/workerman_server.php (same routes, same answers, one
// worker, its default loop) with two more paths for callgrind, which cannot reach Workerman's
// forked worker through callgrind_control: GET /__zero hashes with GOST and GET /__dump with
// Jenkins's one-at-a-time (the php binary exports their C functions, not zif_*), so that
// `valgrind --tool=callgrind --zero-before=PHP_GOSTInit --dump-before=PHP_JOAATInit` zeroes and dumps the counters of the worker on request. The two
// paths sit after the measured ones: GET / and /hello take the same branches as in the original.
// Used by bench/http/count-instructions.sh. Usage: php workerman-counted.php start PORT
$peers = getenv('NEXUS_PEERS_DIR') ?: dirname(__DIR__, 3) . '/shared/peers';
if (!is_file("{$peers}/autoload.php")) {
    $peers = '/work/shared/peers';
}
require "{$peers}/autoload.php";

use Workerman\Connection\TcpConnection;
use Workerman\Protocols\Http\Request;
use Workerman\Protocols\Http\Response;
use Workerman\Worker;

$port = (int) ($argv[2] ?? 8081);
$worker = new Worker("http://127.0.0.1:{$port}");
$worker->count = 1;
$worker->reusePort = true;
$worker->onMessage = static function (TcpConnection $connection, Request $request): void {
    $path = $request->path();
    if ($path === '/') {
        $connection->send(new Response(200, ['Content-Type' => 'text/plain'], 'Hello, world!'));
    } elseif (str_starts_with($path, '/hello/')) {
        $name = rawurldecode(substr($path, 7));
        $connection->send(new Response(200, ['Content-Type' => 'application/json'], json_encode(['message' => "Hello, {$name}!"])));
    } elseif ($path === '/__zero') {
        $connection->send(new Response(200, [], hash('gost', 'zero')));
    } elseif ($path === '/__dump') {
        $connection->send(new Response(200, [], hash('joaat', 'dump')));
    } else {
        $connection->send(new Response(404, [], 'Not Found'));
    }
};
Worker::$logFile = sys_get_temp_dir() . "/workerman-{$port}.log";
Worker::$pidFile = sys_get_temp_dir() . "/workerman-{$port}.pid";
Worker::runAll();
