<?php

declare(strict_types=1);

/*
 * The server's own cost per request, without wrk: the demo app on HttpServer and N keep-alive
 * clients in this one process. Each round every client sends one request; only the time spent
 * inside Loop::tick() is counted (the server's work, its system calls included), and the user
 * CPU of those ticks (getrusage). Prints the best of 5 measured runs. Steadier than wrk on a
 * shared machine, and it runs under callgrind for instruction counts:
 *
 *   php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/http/inprocess.php 100 /hello/Ada
 *   valgrind --tool=callgrind php -d opcache.enable_cli=1 -d opcache.jit=off bench/http/inprocess.php 100 /counter/Ada 12
 *
 * Arguments: connections (default 100; past ~500 it needs the epoll driver: the clients count
 * too), path (default /), rounds per run (default 200), and "metrics" to measure the handler with
 * HttpServerMetrics::wrap() as `nexus serve` does with its admin listener on (the default there).
 * NEXUS_INPROCESS_NO_CPU=1 leaves out the getrusage() calls around each loop turn (the user CPU
 * then reads 0): with few connections they cost as much as the turn, which callgrind counts.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Bench\CpuTime;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Metrics\HttpServerMetrics;
use Nexus\Metrics\Registry;
use Nexus\Runtime\Loop;
use Nexus\Worker\Workers;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$connections = max(1, (int) ($argv[1] ?? 100));
$path = $argv[2] ?? '/';
$rounds = max(1, (int) ($argv[3] ?? 200));
$metrics = ($argv[4] ?? '') === 'metrics';

$loop = new Loop();
$loop->collectCyclesInBatches();
$system = new ActorSystem('inprocess', null, $loop);
$app = new Application($system);
DemoApp::configure($app, $system, Workers::single($system));
$handler = $metrics ? (new HttpServerMetrics(new Registry()))->wrap($app->handler()) : $app->handler();
$server = new HttpServer($loop, $handler);
$server->listen('tcp://127.0.0.1:0');
$clients = [];
for ($i = 0; $i < $connections; ++$i) {
    $client = stream_socket_client($server->address());
    if ($client === false) {
        fwrite(STDERR, "Could not connect client {$i}.\n");
        exit(1);
    }
    stream_set_blocking($client, false);
    $clients[] = $client;
    $loop->tick(false);
}
while ($server->connectionCount() < $connections) {
    $loop->tick(false);
}
$request = "GET {$path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/**
 * @param list<resource> $clients
 *
 * @return array{float, float, float} ns per request inside tick(), user CPU ns per request, ticks per round
 */
$cpu = getenv('NEXUS_INPROCESS_NO_CPU') !== '1';
$run = static function (int $rounds) use ($loop, $clients, $request, $cpu): array {
    $inTick = 0;
    $user = 0.0;
    $ticks = 0;
    foreach (range(1, $rounds) as $_) {
        foreach ($clients as $client) {
            fwrite($client, $request);
        }
        $pending = $clients;
        while ($pending !== []) {
            $before = $cpu ? CpuTime::user() * 1e9 : 0.0;
            $start = hrtime(true);
            $loop->tick(false);
            $inTick += hrtime(true) - $start;
            if ($cpu) {
                $user += CpuTime::user() * 1e9 - $before;
            }
            ++$ticks;
            foreach ($pending as $k => $client) {
                $data = fread($client, 65536);
                if (is_string($data) && str_contains($data, "\r\n\r\n")) {
                    unset($pending[$k]);
                }
            }
        }
    }
    $requests = $rounds * count($clients);

    return [$inTick / $requests, $user / $requests, $ticks / $rounds];
};

$run(max(1, intdiv($rounds, 4)));
$best = $bestUser = INF;
$ticksPerRound = 0.0;
for ($k = 0; $k < 5; ++$k) {
    [$ns, $userNs, $ticksPerRound] = $run($rounds);
    $best = min($best, $ns);
    $bestUser = min($bestUser, $userNs);
}
printf(
    "%d connections, GET %s%s, %s driver: %.0f ns per request inside Loop::tick(), %.0f ns of it user CPU (best of 5 runs of %d rounds), %.1f loop turns per round\n",
    $connections,
    $path,
    $metrics ? ' (with HttpServerMetrics)' : '',
    $loop->driver()->name(),
    $best,
    $bestUser,
    $rounds,
    $ticksPerRound,
);
