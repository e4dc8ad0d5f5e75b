<?php

declare(strict_types=1);

/*
 * The server's own cost per WebSocket echo round trip, without a client process: the demo app's
 * GET /ws/echo route on HttpServer (what `make bench-ws` measures) and N raw client sockets in
 * this one process. Each round every client writes one masked text frame (prepared once, so the
 * client side costs two system calls and a length check); only the time inside Loop::tick() is
 * counted, and its user CPU. Prints the best of 5 measured runs. It runs under callgrind for
 * instruction counts, which load on the machine does not disturb:
 *
 *   php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/ws/inprocess.php 100
 *   valgrind --tool=callgrind php -d opcache.enable_cli=1 -d opcache.jit=off bench/ws/inprocess.php 100 32 20 1
 *
 * Instructions per round trip: the measured runs are framed by two calls of fflush(), so
 * with --dump-before=zif_fflush callgrind writes them to a part of their own (*.2):
 *
 *   valgrind --tool=callgrind --dump-before=zif_fflush --callgrind-out-file=/tmp/ws.cg \
 *     php -d opcache.enable_cli=1 -d opcache.jit=off bench/ws/inprocess.php 100 32 20 1
 *   callgrind_annotate /tmp/ws.cg.2 | head    # total / (rounds x connections)
 *
 * Arguments: connections (default 100), payload bytes (default 32), rounds per run (default
 * 200), measured runs (default 5).
 */

use Nexus\Actor\ActorSystem;
use Nexus\Bench\CpuTime;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Runtime\Loop;
use Nexus\Worker\Workers;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$connections = max(1, (int) ($argv[1] ?? 100));
$size = max(0, (int) ($argv[2] ?? 32));
$rounds = max(1, (int) ($argv[3] ?? 200));
$runs = max(1, (int) ($argv[4] ?? 5));

$loop = new Loop();
$loop->collectCyclesInBatches();
$system = new ActorSystem('inprocess', null, $loop);
$app = new Application($system);
DemoApp::configure($app, $system, Workers::single($system));
$server = new HttpServer($loop, $app->handler());
$server->listen('tcp://127.0.0.1:0');

$clients = [];
for ($i = 0; $i < $connections; ++$i) {
    $client = stream_socket_client($server->address());
    if ($client === false) {
        fwrite(STDERR, "Could not connect client {$i}.\n");
        exit(1);
    }
    fwrite($client, "GET /ws/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        . 'Sec-WebSocket-Key: ' . base64_encode(random_bytes(16)) . "\r\nSec-WebSocket-Version: 13\r\n\r\n");
    stream_set_blocking($client, false);
    $head = '';
    $deadline = microtime(true) + 10.0;
    while (!str_contains($head, "\r\n\r\n")) {
        $loop->tick(false);
        $head .= (string) fread($client, 4096);
        if (microtime(true) > $deadline) {
            fwrite(STDERR, "No 101 for client {$i}: {$head}\n");
            exit(1);
        }
    }
    if (!str_starts_with($head, 'HTTP/1.1 101')) {
        fwrite(STDERR, "Client {$i} was refused: {$head}\n");
        exit(1);
    }
    $clients[] = $client;
}

// One masked text frame of $size bytes ('x'), and the unmasked echo it must come back as.
$payload = str_repeat('x', $size);
$mask = random_bytes(4);
$header = static fn(int $b1Mask, int $length): string => "\x81" . match (true) {
    $length < 126 => chr($b1Mask | $length),
    $length < 65_536 => chr($b1Mask | 126) . pack('n', $length),
    default => chr($b1Mask | 127) . pack('J', $length),
};
$frame = $header(0x80, $size) . $mask . ($payload ^ str_repeat($mask, ($size >> 2) + 1));
$expected = $header(0, $size) . $payload;
$expectedLength = strlen($expected);

/**
 * @param list<resource> $clients
 *
 * @return array{float, float, float} ns per round trip inside tick(), user CPU ns per round trip, loop turns per round
 */
$run = static function (int $rounds) use ($loop, $clients, $frame, $expected, $expectedLength): array {
    $inTick = 0;
    $user = 0.0;
    $ticks = 0;
    for ($round = 0; $round < $rounds; ++$round) {
        foreach ($clients as $client) {
            fwrite($client, $frame);
        }
        $pending = $clients;
        $received = array_fill_keys(array_keys($clients), '');
        while ($pending !== []) {
            $before = CpuTime::user() * 1e9;
            $start = hrtime(true);
            $loop->tick(false);
            $inTick += hrtime(true) - $start;
            $user += CpuTime::user() * 1e9 - $before;
            ++$ticks;
            foreach ($pending as $k => $client) {
                $received[$k] .= (string) fread($client, 65536);
                if ($received[$k] === $expected) {
                    unset($pending[$k]);
                } elseif (strlen($received[$k]) >= $expectedLength) {
                    // A ping from the server's idle check (under valgrind the setup can take
                    // longer than pingInterval) is skipped: the echo is what counts.
                    while (str_starts_with($received[$k], "\x89") && strlen($received[$k]) >= 2) {
                        $received[$k] = substr($received[$k], 2 + ord($received[$k][1]));
                    }
                    if (strlen($received[$k]) < $expectedLength) {
                        continue;
                    }
                    if (!str_starts_with($received[$k], $expected)) {
                        fwrite(STDERR, "Client {$k} got a wrong echo.\n");
                        exit(1);
                    }
                    unset($pending[$k]);
                }
            }
        }
    }
    $roundTrips = $rounds * count($clients);

    return [$inTick / $roundTrips, $user / $roundTrips, $ticks / $rounds];
};

$run(max(1, intdiv($rounds, 4)));
$best = $bestUser = INF;
$ticksPerRound = 0.0;
fflush(STDOUT); // marks the start of the measured runs for callgrind (see above)
for ($k = 0; $k < $runs; ++$k) {
    [$ns, $userNs, $ticksPerRound] = $run($rounds);
    $best = min($best, $ns);
    $bestUser = min($bestUser, $userNs);
}
fflush(STDOUT); // and their end
printf(
    "%d connections, %d-byte text echo, %s driver: %.0f ns per round trip inside Loop::tick(), %.0f ns of it user CPU (best of %d runs of %d rounds), %.1f loop turns per round\n",
    $connections,
    $size,
    $loop->driver()->name(),
    $best,
    $bestUser,
    $runs,
    $rounds,
    $ticksPerRound,
);
