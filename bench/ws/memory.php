<?php

declare(strict_types=1);

/*
 * PHP heap per idle WebSocket connection: memory_get_usage() before and after 1,000 idle
 * WebSocketConnections (started: reading, idle timer armed), each on one end of a Unix socket
 * pair. Reported twice: the WebSocket layer alone (the Io\Connection already exists, as it does
 * when the HTTP server upgrades), and with its Io\Connection.
 *
 *   php bench/ws/memory.php [--connections=1000] [--deflate]
 */

use Nexus\Bench\CommandLine;
use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\PerMessageDeflate;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Io\Connection;
use Nexus\Runtime\Loop;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

[$flags, $given] = CommandLine::parse(
    array_slice($argv, 1),
    ['deflate' => false],
    ['connections' => '1000'],
    "Usage: php bench/ws/memory.php [--connections=N] [--deflate]\n",
);
$count = max(1, (int) ($given['connections'] ?? '1000'));
$deflate = $flags['deflate'] ? new PerMessageDeflate(options: new DeflateOptions()) : null;
$options = new WebSocketOptions();
$loop = new Loop();
$handler = static function (string $payload, bool $binary): void {};

gc_collect_cycles();
$start = memory_get_usage();
/** @var list<Connection> $ours */
$ours = [];
$peers = [];
for ($i = 0; $i < $count; ++$i) {
    $pair = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    if ($pair === false) {
        fwrite(STDERR, "Out of descriptors after {$i} pairs (ulimit -n).\n");
        exit(1);
    }
    $ours[] = new Connection($loop, $pair[0]);
    $peers[] = $pair[1];
}
gc_collect_cycles();
$withIo = memory_get_usage();
$connections = [];
foreach ($ours as $connection) {
    $ws = new WebSocketConnection($loop, $connection, $options, null, $deflate);
    $ws->onMessage($handler);
    $ws->start();
    $connections[] = $ws;
}
gc_collect_cycles();
$end = memory_get_usage();

printf(
    "%d idle WebSocketConnections%s: %s bytes each for the WebSocket layer, %s bytes each with the Io\\Connection and its socket\n",
    $count,
    $deflate !== null ? ' (permessage-deflate agreed, no message yet)' : '',
    number_format(($end - $withIo) / $count),
    number_format(($end - $start) / $count),
);
