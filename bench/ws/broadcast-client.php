<?php

declare(strict_types=1);

/*
 * One process' share of the clients of the broadcast benchmark (make bench-ws): N connections to
 * one room, counting the messages they receive. With --publish, its first connection also
 * publishes, keeping --window messages in flight (the next goes out when one of its own comes
 * back), so the room is busy without a backlog growing without end.
 *
 * Prints "ready N" once connected, waits for "go SECONDS WARMUP" on stdin, and prints one JSON
 * line: messages received in the measured window, its length, messages published, connections
 * closed by the server meanwhile.
 *
 *   php bench/ws/broadcast-client.php --address=tcp://127.0.0.1:PORT --path=/ws/chat/bench [--connections=500] [--publish] [--window=16] [--size=32]
 */

use Nexus\Bench\CommandLine;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\WebSocket\ClientConnector;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$usage = "Usage: php bench/ws/broadcast-client.php --address=tcp://HOST:PORT --path=PATH [--connections=N] [--publish] [--window=N] [--size=BYTES]\n";
[$flags, $given] = CommandLine::parse(array_slice($argv, 1), ['publish' => false], ['address' => '', 'path' => '/ws/chat/bench', 'connections' => '500', 'window' => '16', 'size' => '32'], $usage);
$address = $given['address'] ?? '';
if ($address === '') {
    fwrite(STDERR, $usage);
    exit(2);
}
$count = max(1, (int) ($given['connections'] ?? 500));
$window = max(1, (int) ($given['window'] ?? 16));
$payload = str_repeat('m', max(1, (int) ($given['size'] ?? 32)));
$path = $given['path'] ?? '/ws/chat/bench';

$loop = new Loop();
$received = 0;
$closed = 0;
// Shared with the publisher's callback, which changes it.
$publisher = new class {
    public bool $publishing = false;
    public int $published = 0;
};
/** @var list<WebSocketConnection> $sockets */
$sockets = [];
// The client side never needs pings or an idle timeout here; large buffers keep it from lagging.
$options = new WebSocketOptions(pingInterval: 0.0, idleTimeout: 0.0, deflate: null);
for ($i = 0; $i < $count; ++$i) {
    $publishes = $i === 0 && $flags['publish'];
    $socket = ClientConnector::connect($loop, $address, static function (string $message) use (&$received, &$sockets, $publisher, $publishes, $payload): void {
        ++$received;
        if ($publishes && $publisher->publishing && str_starts_with($message, $payload)) {
            ++$publisher->published;
            $sockets[0]->send($payload . ' ' . $publisher->published);
        }
    }, $options, $path, timeout: 20.0);
    $socket->onClose(static function () use (&$closed): void {
        ++$closed;
    });
    $sockets[] = $socket;
}
echo "ready {$count}\n";

$line = trim((string) fgets(STDIN));
if (preg_match('/^go ([\d.]+) ([\d.]+)$/', $line, $match) !== 1) {
    fwrite(STDERR, "Expected 'go SECONDS WARMUP', got '{$line}'.\n");
    exit(2);
}
[$seconds, $warmup] = [(float) $match[1], (float) $match[2]];
if ($flags['publish']) {
    $publisher->publishing = true;
    for ($i = 0; $i < $window; ++$i) {
        ++$publisher->published;
        $sockets[0]->send($payload . ' ' . $publisher->published);
    }
}
$runFor = static function (float $duration) use ($loop): float {
    $done = false;
    $loop->delay($duration, static function () use (&$done): void {
        $done = true;
    });
    $start = hrtime(true);
    while (!$done) {
        $loop->tick();
    }

    return (hrtime(true) - $start) / 1e9;
};
$runFor($warmup);
$before = $received;
$elapsed = $runFor($seconds);
$measured = $received - $before;
$publisher->publishing = false;
echo json_encode(['received' => $measured, 'seconds' => $elapsed, 'published' => $publisher->published, 'closed' => $closed, 'connections' => $count]), "\n";
foreach ($sockets as $socket) {
    $socket->abort();
}
