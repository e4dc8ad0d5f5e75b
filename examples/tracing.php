<?php

declare(strict_types=1);

// php examples/tracing.php
//
// One traced request, start to finish, in one process: an OTLP collector stand-in, a traced
// application whose handler asks an actor, which tells another, and the trace as the collector
// received it. With `nexus serve` the same comes from the OTEL_* environment variables.

require __DIR__ . '/../vendor/autoload.php';

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\HttpClient\HttpClient;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;
use Nexus\Telemetry\Telemetry;

$loop = new Loop();
$system = new ActorSystem('tracing-example', null, $loop);

// 1. A stand-in for an OpenTelemetry collector: keeps the spans it receives over OTLP/HTTP JSON.
$received = [];
$collectorApp = new Application();
$collectorApp->post('/v1/traces', static function (Request $request) use (&$received): Response {
    $export = json_decode($request->body(), true, 64, JSON_THROW_ON_ERROR);
    foreach ($export['resourceSpans'] as $resourceSpans) {
        foreach ($resourceSpans['scopeSpans'] as $scopeSpans) {
            array_push($received, ...$scopeSpans['spans']);
        }
    }

    return new Response(200, ['Content-Type' => 'application/json'], '{}');
});
$collector = new HttpServer($loop, $collectorApp->handler());
$collector->listen('tcp://127.0.0.1:0');

// 2. Tracing, configured by the standard variables (an array here; getenv() when left out).
$telemetry = Telemetry::fromEnvironment($loop, new StderrLogger(), [
    'OTEL_TRACES_EXPORTER' => 'otlp',
    'OTEL_EXPORTER_OTLP_ENDPOINT' => str_replace('tcp://', 'http://', $collector->address()),
    'OTEL_EXPORTER_OTLP_PROTOCOL' => 'http/json',
    'OTEL_SERVICE_NAME' => 'tracing-example',
]) ?? throw new LogicException('tracing is on: OTEL_TRACES_EXPORTER=otlp');
$telemetry->install();

// 3. The application: GET /hello/{name} asks the greeter, which tells the audit log.
$audit = $system->spawn(Behavior::receive(static function (string $line): void {}), 'audit');
$greeter = $system->spawn(Behavior::receive(static function (string $name, ActorContext $ctx) use ($audit): void {
    $audit->tell("greeted {$name}");
    $ctx->reply("Hello, {$name}!");
}), 'greeter');
$app = new Application($system);
$telemetry->instrument($app);
$app->get('/hello/{name}', static fn(string $name): array => ['greeting' => $greeter->ask($name)->await()]);
$server = new HttpServer($loop, $app->handler());
$server->listen('tcp://127.0.0.1:0');

// 4. A request that continues the caller's trace (W3C traceparent).
$client = new HttpClient($loop);
$response = $client->get(str_replace('tcp://', 'http://', $server->address()) . '/hello/Ada', [
    'traceparent' => '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
])->await();
echo $response->status(), ' ', $response->body(), "\n";

// 5. Export what is queued, and print the trace: each span under its parent.
$telemetry->shutdown();
$children = [];
foreach ($received as $span) {
    $children[$span['parentSpanId'] ?? ''][] = $span;
}
$print = static function (string $parent, int $depth) use (&$print, $children): void {
    foreach ($children[$parent] ?? [] as $span) {
        $attributes = [];
        foreach ($span['attributes'] ?? [] as $attribute) {
            if (in_array($attribute['key'], ['http.route', 'http.response.status_code', 'nexus.actor.path'], true)) {
                $attributes[] = $attribute['key'] . '=' . implode('', $attribute['value']);
            }
        }
        printf("%s%s (%s)\n", str_repeat('  ', $depth), $span['name'], implode(', ', $attributes));
        $print($span['spanId'], $depth + 1);
    }
};
echo "trace {$received[0]['traceId']}, under the caller's span 00f067aa0ba902b7:\n";
$print('00f067aa0ba902b7', 1);

$client->close();
$server->stop(1.0);
$collector->stop(1.0);
$system->shutdown();
$system->run();
