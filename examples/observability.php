<?php

declare(strict_types=1);

/*
 * An application with its admin listener, wired by hand (until `nexus serve --admin` does it):
 *
 *     php examples/observability.php --port=8080 --admin=127.0.0.1:9090 [--demo]
 *
 * then open http://127.0.0.1:9090/dashboard, scrape http://127.0.0.1:9090/metrics, or run
 * `php bin/nexus top --admin=127.0.0.1:9090`. POST /counters/{name} starts a counter actor,
 * POST /counters/{name}/stop stops it (later messages to it become dead letters).
 * --demo adds a tree of actors, a trickle of requests to itself and a dead letter now and then.
 * SIGINT or SIGTERM stops it.
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Admin\ActorSystemView;
use Nexus\Admin\AdminAddress;
use Nexus\Admin\AdminServer;
use Nexus\Admin\CheckResult;
use Nexus\Admin\HealthChecks;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Io\Connector;
use Nexus\Log\StderrLogger;
use Nexus\Metrics\HttpServerMetrics;
use Nexus\Metrics\Registry;
use Nexus\Runtime\Loop;

require __DIR__ . '/../vendor/autoload.php';

$options = getopt('', ['port:', 'admin:', 'demo']);
$port = (int) ($options['port'] ?? 8080);
$adminAddress = AdminAddress::parse(is_string($options['admin'] ?? null) ? $options['admin'] : AdminAddress::DEFAULT);

$loop = new Loop();
$logger = new StderrLogger();
$system = new ActorSystem('shop', $logger, $loop);
$registry = new Registry();
// Created with the system, so that it sees every actor start.
$view = new ActorSystemView($system, $registry, static function () use (&$server): int {
    return $server instanceof HttpServer ? $server->requestsServed() : 0;
});

$counter = Behavior::withState(0, static function (int $count, mixed $message, ActorContext $ctx): int {
    if ($message === 'get') {
        $ctx->reply($count);

        return $count;
    }

    return $count + 1;
});
$app = new Application($system, logger: $logger);
$app->middleware(new HttpServerMetrics($registry));
$app->get('/hello', static fn(): string => "Hello!\n");
$app->post('/counters/{name}', static function (string $name) use ($system, $counter): array {
    $ref = $system->lookup("/user/{$name}") ?? $system->spawn($counter, $name);
    $ref->tell('increment');

    return ['counter' => $ref->path()];
});
$app->post('/counters/{name}/stop', static function (string $name) use ($system): array {
    $ref = $system->lookup("/user/{$name}");
    if ($ref !== null) {
        $system->stop($ref);
    }

    return ['stopped' => $ref !== null];
});

$server = new HttpServer($loop, $app->handler(), logger: $logger);
$server->listen("tcp://127.0.0.1:{$port}");

$checks = (new HealthChecks($loop))
    ->add('actors', static fn(): CheckResult => $system->isTerminated() ? CheckResult::fail('the actor system has stopped') : CheckResult::ok('running'))
    ->add('http', static fn(): CheckResult => CheckResult::ok($server->connectionCount() . ' connections open'));
$admin = new AdminServer($loop, $registry->snapshot(...), $view, $checks, 'shop', $logger);
$adminBound = $adminAddress === null ? 'off' : $admin->listen($adminAddress);

if (isset($options['demo'])) {
    $system->spawn(Behavior::setup(static function (ActorContext $ctx) use ($counter): Behavior {
        for ($i = 1; $i <= 8; ++$i) {
            $ctx->spawn($counter, "order-{$i}");
        }

        return Behavior::ignore();
    }), 'orders');
    $system->spawn(Behavior::setup(static function (ActorContext $ctx) use ($counter): Behavior {
        $ctx->spawn($counter, 'stock');
        $ctx->spawn(Behavior::setup(static function (ActorContext $ctx) use ($counter): Behavior {
            $ctx->spawn($counter, 'eu-west');
            $ctx->spawn($counter, 'us-east');

            return Behavior::ignore();
        }), 'warehouses');

        return Behavior::ignore();
    }), 'inventory');
    $gone = $system->spawn($counter, 'retired');
    $system->stop($gone);
    $loop->repeat(1.5, static function () use ($gone): void {
        $gone->tell('too late');
    });
    $address = $server->address();
    $loop->repeat(0.01, static function () use ($loop, $address): void {
        $loop->async(static function () use ($loop, $address): void {
            $connection = Connector::connect($loop, $address)->await(1.0);
            $connection->write("GET /hello HTTP/1.1\r\nHost: demo\r\nConnection: close\r\n\r\n");
            while ($connection->read()->await(2.0) !== null) {
                // read until the server closes
            }
            $connection->close();
        })->ignore();
    });
}

$stop = static function () use ($server, $admin, $system): void {
    $admin->stop();
    $server->stop()->onSettle(static fn() => $system->shutdown());
};
$loop->onSignal(SIGINT, $stop);
$loop->onSignal(SIGTERM, $stop);

echo 'app http://' . substr($server->address(), 6) . ' admin ' . ($adminBound === 'off' ? 'off' : 'http://' . substr($adminBound, 6)) . "\n";
$system->run();
