<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Telemetry;

use Nexus\HttpClient\HttpClient;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\OtlpCollector;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Tests\Support\ServedNexus;
use PHPUnit\Framework\TestCase;

/**
 * `bin/nexus serve --workers=2` with OTEL_TRACES_EXPORTER=otlp, and an OTLP collector run by the
 * test: a request that carries a traceparent is served by one worker, whose handler asks an actor
 * on the other worker, which asks an actor of its own. The collector receives one trace: the
 * server span under the caller's span, the remote actor's turn under the server span, and the
 * local ask under that turn, from both workers (their resources say which).
 */
final class TraceAcrossWorkersTest extends TestCase
{
    use RunsTheLoop;

    private Loop $loop;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->giveUpAfter(60.0);
    }

    public function testOneRequestThroughAnActorOnAnotherWorkerIsOneTrace(): void
    {
        $collector = new OtlpCollector($this->loop);
        $served = ServedNexus::start(['tests/Integration/Telemetry/Fixture/relay-app.php', '--workers=2', '--no-jit'], 30.0, [
            'OTEL_TRACES_EXPORTER' => 'otlp',
            'OTEL_EXPORTER_OTLP_ENDPOINT' => $collector->url(),
            'OTEL_SERVICE_NAME' => 'relay',
            'OTEL_BSP_SCHEDULE_DELAY' => '50',
        ]);
        $client = new HttpClient($this->loop);
        try {
            $traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
            $response = $client->get("{$served->url}/relay/ada", ['traceparent' => "00-{$traceId}-1122334455667788-01"])->await(20.0);
            self::assertSame(200, $response->status(), $response->body());
            /** @var array{served_by: int, reply: array{worker: int, upper: string}} $body */
            $body = json_decode($response->body(), true, 8, \JSON_THROW_ON_ERROR);
            self::assertSame('ADA', $body['reply']['upper']);
            self::assertNotSame($body['served_by'], $body['reply']['worker'], 'the actor ran on the other worker');

            $this->pollUntil(static fn(): bool => \count($collector->trace($traceId)) >= 3, 30.0);
            $spans = $collector->trace($traceId);
            self::assertCount(3, $spans, 'spans: ' . implode(', ', array_column($spans, 'name')));
            $http = $collector->span('GET /relay/{name}');
            self::assertNotNull($http);
            self::assertSame('1122334455667788', $http['parentSpanId'], 'the server span continues the caller\'s trace');
            self::assertSame(2, $http['kind'], 'SPAN_KIND_SERVER');
            self::assertSame('/relay/{name}', $http['attributes']['http.route']);
            self::assertSame('/relay/ada', $http['attributes']['url.path']);
            self::assertSame(200, $http['attributes']['http.response.status_code']);
            self::assertSame('relay', $http['resource']['service.name']);
            self::assertSame($body['served_by'], $http['resource']['nexus.worker']);

            $turns = [];
            foreach ($spans as $span) {
                $path = $span['attributes']['nexus.actor.path'] ?? null;
                if ($span['name'] === 'process string' && \is_string($path)) {
                    $turns[$path] = $span;
                }
            }
            self::assertArrayHasKey('/user/echo', $turns);
            self::assertArrayHasKey('/user/upper', $turns);
            $echo = $turns['/user/echo'];
            $upper = $turns['/user/upper'];
            self::assertSame($http['spanId'], $echo['parentSpanId'], 'the turn on the other worker is a child of the request');
            self::assertSame($body['reply']['worker'], $echo['resource']['nexus.worker']);
            self::assertSame(5, $echo['kind'], 'SPAN_KIND_CONSUMER');
            self::assertSame($echo['spanId'], $upper['parentSpanId'], 'the local ask is a child of that turn');
            self::assertSame($body['reply']['worker'], $upper['resource']['nexus.worker']);

            // A malformed traceparent is ignored: the request is served and starts a trace of its own.
            $before = \count($collector->spans);
            $response = $client->get("{$served->url}/relay/bob", ['traceparent' => '00-zzzz-not-a-trace-01'])->await(20.0);
            self::assertSame(200, $response->status());
            $this->pollUntil(static function () use ($collector, $before): bool {
                foreach (\array_slice($collector->spans, $before) as $span) {
                    if ($span['name'] === 'GET /relay/{name}') {
                        return true;
                    }
                }

                return false;
            }, 30.0);
            foreach (\array_slice($collector->spans, $before) as $span) {
                if ($span['name'] === 'GET /relay/{name}') {
                    self::assertSame('', $span['parentSpanId'], 'a new trace has no parent');
                    self::assertNotSame($traceId, $span['traceId']);
                }
            }
        } finally {
            $client->close();
            $served->stop();
            $collector->stop();
        }
    }
}
