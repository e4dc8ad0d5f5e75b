<?php

declare(strict_types=1);

/*
 * A WebSocket echo route (GET /echo, the demo's EchoHandler) on an HttpServer in a process of its
 * own, for TenThousandWebSocketsTest: one worker's loop with the driver DriverFactory picks (which
 * raises RLIMIT_NOFILE to the hard limit first) and the default connection cap (what that driver
 * holds). Pings and the idle timeout are off, so that an idle connection hears nothing but its
 * echo however long the loaded machine takes. Prints its address on stdout, then
 * "driver NAME cap N" on stderr, and serves until killed.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Demo\Chat\EchoHandler;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Io\ListenOptions;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;
use Psr\Log\LogLevel;

require dirname(__DIR__, 5) . '/vendor/autoload.php';

$loop = new Loop();
$loop->collectCyclesInBatches();
$logger = new StderrLogger(LogLevel::WARNING);
$system = new ActorSystem('c10k-ws', $logger, $loop);
$app = new Application($system, logger: $logger);
$app->websocket('/echo', new EchoHandler(), new WebSocketOptions(pingInterval: 0.0, idleTimeout: 0.0, deflate: null));
// Connections that wait for their upgrade must outlive the slowest phase on a loaded machine.
$server = new HttpServer($loop, $app->handler(), new ServerOptions(headerTimeout: 120.0, keepAliveTimeout: 120.0), $logger);
$server->listen('tcp://127.0.0.1:0', new ListenOptions(backlog: 4096));
fwrite(STDOUT, $server->address() . "\n");
fwrite(STDERR, sprintf("driver %s cap %d\n", $loop->driver()->name(), $server->maxConnections()));
$loop->run();
