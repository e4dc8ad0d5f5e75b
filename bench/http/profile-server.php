<?php

declare(strict_types=1);

/*
 * The demo app's GET / and GET /hello/{name} on HttpServer in one process, with the loop driven
 * by hand so that it can report, each second on stderr: responses, loop turns, responses per
 * turn, open connections and cycle-collector runs. For profiling (callgrind) and for looking at
 * the turn structure under wrk:
 *
 *   php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M bench/http/profile-server.php 8080
 *   valgrind --tool=callgrind php -d opcache.enable_cli=1 -d opcache.jit=off bench/http/profile-server.php 8080
 *
 * NEXUS_SRC=/path/to/other/src loads the Nexus classes from there instead: to compare with another
 * version, e.g. `git archive HEAD src | tar -x -C /tmp/before` then NEXUS_SRC=/tmp/before/src.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\ListenOptions;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;

require dirname(__DIR__, 2) . '/vendor/autoload.php';

$other = getenv('NEXUS_SRC');
if (is_string($other) && $other !== '') {
    spl_autoload_register(static function (string $class) use ($other): void {
        if (str_starts_with($class, 'Nexus\\')) {
            $file = $other . '/' . str_replace('\\', '/', substr($class, 6)) . '.php';
            if (is_file($file)) {
                require $file;
            }
        }
    }, true, true);
}

$port = (int) ($argv[1] ?? 8080);
$loop = new Loop();
$logger = new StderrLogger();
$system = new ActorSystem('profile', $logger, $loop);
$app = new Application($system, logger: $logger);
$app->get('/', static fn(): string => 'Hello, world!');
$app->get('/hello/{name}', static fn(string $name): array => ['message' => "Hello, {$name}!"]);
$server = new HttpServer($loop, $app->handler(), new ServerOptions(), $logger);
$server->listen("tcp://127.0.0.1:{$port}", new ListenOptions(tcpNoDelay: true));
fwrite(STDOUT, "tcp://127.0.0.1:{$port}\n");

$turns = 0;
$lastServed = 0;
$lastTurns = 0;
$report = $loop->repeat(1.0, static function () use (&$turns, &$lastServed, &$lastTurns, $server): void {
    $served = $server->requestsServed() - $lastServed;
    $ticks = $turns - $lastTurns;
    $lastServed += $served;
    $lastTurns = $turns;
    if ($served > 0) {
        fprintf(STDERR, "%d responses, %d turns, %.1f per turn, %d connections, %d gc runs\n", $served, $ticks, $served / max(1, $ticks), $server->connectionCount(), gc_status()['runs']);
    }
});
$loop->unreference($report);
while ($loop->tick()) {
    ++$turns;
}
