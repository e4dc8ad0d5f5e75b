<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Telemetry;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\HttpClient\HttpClient;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Telemetry\OtlpProtocol;
use Nexus\Telemetry\Telemetry;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Tests\Support\OtlpCollector;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Trace\Tracing;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * One process, real parts: an HTTP server with tracing, an actor the handler asks, which tells
 * another, and an OTLP collector on the same loop. The spans arrive as one trace with the right
 * parents, through the HTTP client's PSR-18 adapter, in protobuf and in JSON.
 */
final class InProcessTracingTest extends TestCase
{
    use RunsTheLoop;

    private Loop $loop;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->giveUpAfter(20.0);
    }

    protected function tearDown(): void
    {
        Tracing::$tracer = null;
    }

    /**
     * @return iterable<string, array{OtlpProtocol}>
     */
    public static function protocols(): iterable
    {
        yield 'protobuf' => [OtlpProtocol::HttpProtobuf];
        yield 'json' => [OtlpProtocol::HttpJson];
    }

    #[DataProvider('protocols')]
    public function testARequestAndTheActorsItReachesMakeOneTrace(OtlpProtocol $protocol): void
    {
        $collector = new OtlpCollector($this->loop);
        $logger = new MemoryLogger();
        $system = new ActorSystem('traced', $logger, $this->loop);
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(
            endpoint: $collector->url() . '/v1/traces',
            protocol: $protocol,
            serviceName: 'in-process',
            scheduleDelay: 0.05,
        ), $logger);
        $telemetry->install();

        $audit = $system->spawn(Behavior::receive(static fn(mixed $message, ActorContext $ctx): Behavior => Behavior::same()), 'audit');
        $greeter = $system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($audit): Behavior {
            \assert(\is_string($message));
            $audit->tell("greeted {$message}");
            $ctx->reply("Hello, {$message}!");

            return Behavior::same();
        }), 'greeter');
        $app = new Application($system);
        $telemetry->instrument($app);
        $app->get('/hello/{name}', static fn(string $name): array => ['greeting' => $greeter->ask($name)->await()]);
        $server = new HttpServer($this->loop, $app->handler());
        $server->listen('tcp://127.0.0.1:0');
        $url = str_replace('tcp://', 'http://', $server->address());
        $client = new HttpClient($this->loop);

        $parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
        $response = $client->get("{$url}/hello/ada", ['traceparent' => $parent, 'tracestate' => 'vendor=abc'])->await();
        self::assertSame(200, $response->status());
        self::assertStringContainsString('Hello, ada!', $response->body());

        $traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
        $this->pollUntil(static fn(): bool => \count($collector->trace($traceId)) >= 3);
        $spans = $collector->trace($traceId);
        self::assertCount(3, $spans);
        $byName = array_column($spans, null, 'name');
        self::assertArrayHasKey('GET /hello/{name}', $byName, 'names: ' . implode(', ', array_keys($byName)));
        $http = $byName['GET /hello/{name}'];
        $greeted = $byName['process string'] ?? null;
        self::assertNotNull($greeted);
        self::assertSame('00f067aa0ba902b7', $http['parentSpanId']);
        self::assertSame('GET', $http['attributes']['http.request.method']);
        self::assertSame('/hello/{name}', $http['attributes']['http.route']);
        self::assertSame('/hello/ada', $http['attributes']['url.path']);
        self::assertSame(200, $http['attributes']['http.response.status_code']);
        self::assertSame('in-process', $http['resource']['service.name']);
        self::assertContains($protocol->contentType(), $collector->contentTypes);

        $actorSpans = array_values(array_filter($spans, static fn(array $s): bool => $s['name'] === 'process string'));
        self::assertCount(2, $actorSpans);
        $byPath = array_column($actorSpans, null, 'spanId');
        $greeterSpan = null;
        $auditSpan = null;
        foreach ($actorSpans as $span) {
            if ($span['attributes']['nexus.actor.path'] === '/user/greeter') {
                $greeterSpan = $span;
            } elseif ($span['attributes']['nexus.actor.path'] === '/user/audit') {
                $auditSpan = $span;
            }
        }
        self::assertNotNull($greeterSpan);
        self::assertNotNull($auditSpan);
        self::assertSame($http['spanId'], $greeterSpan['parentSpanId'], 'the ask from the handler is a child of the request');
        self::assertSame($greeterSpan['spanId'], $auditSpan['parentSpanId'], 'the tell from the greeter is a child of its turn');
        self::assertCount(2, $byPath);

        $telemetry->shutdown();
        $collector->stop();
        $server->stop(1.0);
        $client->close();
        $system->shutdown();
        $system->run();
    }
}
