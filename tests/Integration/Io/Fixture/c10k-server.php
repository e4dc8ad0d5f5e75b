<?php

declare(strict_types=1);

/*
 * An HTTP server in a process of its own for the 10,000-connection test: the loop's driver is
 * the one DriverFactory picks (which raises RLIMIT_NOFILE to the hard limit first), the
 * connection cap is the default one (what that driver can hold). Prints its address on stdout,
 * then "driver NAME cap N limit N" on stderr, and serves every request with "ok PATH" until killed.
 */

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\ListenOptions;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;
use Psr\Log\LogLevel;

require dirname(__DIR__, 4) . '/vendor/autoload.php';

$loop = new Loop();
$loop->collectCyclesInBatches();
$handler = new class implements RequestHandler {
    public function handle(Request $request): Response
    {
        return Response::text('ok ' . $request->path());
    }
};
// Idle connections must outlive the test's slowest phase on a loaded machine.
$server = new HttpServer($loop, $handler, new ServerOptions(headerTimeout: 120.0, keepAliveTimeout: 120.0), new StderrLogger(LogLevel::WARNING));
$server->listen('tcp://127.0.0.1:0', new ListenOptions(backlog: 4096));
fwrite(STDOUT, $server->address() . "\n");
fwrite(STDERR, sprintf("driver %s cap %d limit %d\n", $loop->driver()->name(), $server->maxConnections(), $loop->driver()->capacity()));
$loop->run();
