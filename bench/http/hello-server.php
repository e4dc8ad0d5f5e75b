<?php

declare(strict_types=1);

/*
 * The HTTP server answering every request with "Hello, world!", for load generators:
 * php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M \
 *     bench/http/hello-server.php [port]      (default 8080; prints the address when ready)
 * then e.g. wrk -t1 -c100 -d5s http://127.0.0.1:8080/
 */

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\Runtime\Loop;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$port = (int) ($argv[1] ?? 8080);
$loop = new Loop();
$handler = new class (static fn(Request $request): Response => Response::text('Hello, world!')) implements RequestHandler {
    /** @param \Closure(Request): Response $callback */
    public function __construct(private readonly \Closure $callback) {}

    public function handle(Request $request): Response
    {
        return ($this->callback)($request);
    }
};
$server = new HttpServer($loop, $handler);
$server->listen("tcp://127.0.0.1:{$port}");
if (function_exists('pcntl_signal')) {
    foreach ([SIGINT, SIGTERM] as $signal) {
        $loop->onSignal($signal, static function () use ($server, $loop): void {
            $server->stop(2.0)->onSettle(static function () use ($loop): void {
                $loop->stop();
            });
        });
    }
}
fwrite(STDOUT, $server->address() . "\n");
$loop->run();
