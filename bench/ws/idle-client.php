<?php

declare(strict_types=1);

/*
 * The client of the 10,000-idle-connections stage of `make bench-ws`: it opens N WebSocket
 * connections to one server on its own epoll loop (the descriptor limit raised to the hard
 * limit by DriverFactory; stream_select() could not hold them), keeps them idle (answering the
 * server's pings), and then, on "go" from stdin:
 *
 * - times P echo round trips one after the other on one more connection (the probe) while the N
 *   are open: p50, p99 and max in milliseconds;
 * - sends one message on every one of the N at once and waits until each has its own echo back:
 *   how many did, and how long that took.
 *
 * Prints "ready N SECONDS" once the N are open (how long opening took), then one JSON line.
 * Every wait has a deadline; a connection that fails or closes is counted, not hidden.
 *
 *   php bench/ws/idle-client.php --address=tcp://127.0.0.1:PORT [--path=/ws/echo] [--connections=10000] [--probes=2000] [--batch=250]
 */

use Nexus\Bench\CommandLine;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\WebSocket\ClientConnector;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$usage = "Usage: php bench/ws/idle-client.php --address=tcp://HOST:PORT [--path=/ws/echo] [--connections=N] [--probes=N] [--batch=N]\n";
[, $given] = CommandLine::parse(array_slice($argv, 1), [], ['address' => '', 'path' => '/ws/echo', 'connections' => '10000', 'probes' => '2000', 'batch' => '250'], $usage);
$address = $given['address'] ?? '';
if ($address === '') {
    fwrite(STDERR, $usage);
    exit(2);
}
$count = max(1, (int) ($given['connections'] ?? 10_000));
$probes = max(1, (int) ($given['probes'] ?? 2000));
$batch = max(1, (int) ($given['batch'] ?? 250));
$path = $given['path'] ?? '/ws/echo';

$limit = DriverFactory::descriptorLimit();
if ($limit < $count + 100) {
    fwrite(STDERR, sprintf("The descriptor limit is %d and cannot be raised to %d: raise the hard limit (ulimit -Hn, as root).\n", $limit, $count + 100));
    exit(3);
}
$loop = new Loop();
if ($loop->driver()->name() !== 'epoll') {
    fwrite(STDERR, 'This client needs the epoll driver for ' . number_format($count) . ' connections: ' . (DriverFactory::fallbackReason() ?? '?') . "\n");
    exit(3);
}

// The client never pings nor times out by itself; it answers the server's pings.
$options = new WebSocketOptions(pingInterval: 0.0, idleTimeout: 0.0, deflate: null);
$answered = 0; // idle connections that got their own echo back
$closed = 0;
/** @var list<WebSocketConnection> $idle */
$idle = [];
$started = hrtime(true);
for ($first = 0; $first < $count; $first += $batch) {
    $attempts = [];
    for ($n = $first; $n < min($count, $first + $batch); ++$n) {
        $attempts[] = $loop->async(static function () use ($loop, $address, $path, $options, $n, &$answered, &$closed): WebSocketConnection {
            $socket = ClientConnector::connect($loop, $address, static function (string $message) use ($n, &$answered): void {
                $answered += $message === "echo {$n}" ? 1 : 0;
            }, $options, $path, timeout: 60.0);
            $socket->onClose(static function () use (&$closed): void {
                ++$closed;
            });

            return $socket;
        });
    }
    foreach (Future::all($attempts)->await(120.0) as $socket) {
        $idle[] = $socket;
    }
}
$opened = (hrtime(true) - $started) / 1e9;
echo "ready {$count} {$opened}\n";

$runUntil = static function (Closure $done, float $seconds) use ($loop): bool {
    $deadline = microtime(true) + $seconds;
    while (!(bool) $done() && microtime(true) < $deadline) {
        $loop->tick();
    }

    return (bool) $done();
};

// Waits for "go" while the loop keeps the idle connections served. Standard input is read on a
// timer, not watched: a pipe is no socket, so the epoll driver would hand it to stream_select(),
// which cannot take the descriptor numbers this process holds now.
stream_set_blocking(STDIN, false);
$command = '';
$stdin = $loop->repeat(0.02, static function () use (&$command): void {
    $command .= (string) fread(STDIN, 64);
});
if (!$runUntil(static function () use (&$command): bool {
    return str_contains($command, "\n") || feof(STDIN);
}, 600.0) || trim($command) !== 'go') {
    fwrite(STDERR, "Expected 'go' on stdin, got '" . trim($command) . "'.\n");
    exit(2);
}
$loop->cancel($stdin);

// The probe: one round trip after the other.
$latencies = [];
$sentAt = 0;
$probe = null;
$probe = ClientConnector::connect($loop, $address, static function (string $message) use (&$latencies, &$sentAt, &$probe, $probes): void {
    $latencies[] = (hrtime(true) - $sentAt) / 1e6;
    if (count($latencies) < $probes) {
        $sentAt = hrtime(true);
        $probe?->send('ping');
    }
}, $options, $path, timeout: 10.0);
$sentAt = hrtime(true);
$probe->send('ping');
$runUntil(static function () use (&$latencies, $probes): bool {
    return count($latencies) >= $probes;
}, 120.0);
$probe->close();
sort($latencies);
$at = static fn(int $percent): ?float => $latencies === [] ? null : $latencies[min(count($latencies) - 1, intdiv(count($latencies) * $percent, 100))];

// Every idle connection asks once, and must get its own answer.
$started = hrtime(true);
foreach ($idle as $n => $socket) {
    $socket->send("echo {$n}");
}
$runUntil(static function () use (&$answered, $count): bool {
    return $answered >= $count;
}, 120.0);
$burst = (hrtime(true) - $started) / 1e9;

echo json_encode([
    'connections' => $count,
    'open_seconds' => $opened,
    'probes' => count($latencies),
    'p50_ms' => $at(50),
    'p99_ms' => $at(99),
    'max_ms' => $latencies === [] ? null : end($latencies),
    'all_answered' => $answered,
    'all_seconds' => $burst,
    'closed' => $closed,
]), "\n";
foreach ($idle as $socket) {
    $socket->abort();
}
