<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Telemetry;

use Nexus\Admin\ServedObservability;
use Nexus\Http\Application;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\HttpClient\ClientMetrics;
use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\Exception\HttpClientException;
use Nexus\HttpClient\HttpClient;
use Nexus\Log\MemoryLogger;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Registry;
use Nexus\Runtime\Loop;
use Nexus\Telemetry\Telemetry;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Tests\Support\OtlpCollector;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracing;
use PHPUnit\Framework\TestCase;

/**
 * An outgoing request of traced work is a CLIENT span of that work and carries the trace on
 * (traceparent, tracestate), so that the called service continues it; every request counts in
 * http.client.request.duration; the OTLP exporter's own requests make no span.
 */
final class HttpClientSpansTest extends TestCase
{
    use RunsTheLoop;

    private const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

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

    public function testARequestOfTracedWorkIsItsClientSpanAndTheCalledServiceContinuesTheTrace(): void
    {
        $collector = new OtlpCollector($this->loop);
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(endpoint: $collector->url() . '/v1/traces', scheduleDelay: 0.05), new MemoryLogger());
        $telemetry->install();

        // The called service: traced too (the same process stands for another one), it keeps the
        // trace headers it received.
        $received = [];
        $downstream = new Application();
        $telemetry->instrument($downstream);
        $downstream->get('/stock/{item}', static function (Request $request, string $item) use (&$received): Response {
            $received[] = ['traceparent' => $request->header('traceparent'), 'tracestate' => $request->header('tracestate')];

            return $item === 'broken' ? new Response(500, [], 'no') : new Response(200, [], '7');
        });
        $stock = new HttpServer($this->loop, $downstream->handler());
        $stock->listen('tcp://127.0.0.1:0');
        $stockUrl = str_replace('tcp://', 'http://', $stock->address());
        $stockPort = (int) substr($stockUrl, strrpos($stockUrl, ':') + 1);

        $outgoing = new HttpClient($this->loop);
        $upstream = new Application();
        $telemetry->instrument($upstream);
        $upstream->get('/order/{item}', static function (string $item) use ($outgoing, $stockUrl): array {
            $response = $outgoing->get("{$stockUrl}/stock/{$item}?sig=s3cret&x=1", ['traceparent' => '00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01'])->await();

            return ['stock' => $response->body(), 'status' => $response->status()];
        });
        $shop = new HttpServer($this->loop, $upstream->handler());
        $shop->listen('tcp://127.0.0.1:0');
        $shopUrl = str_replace('tcp://', 'http://', $shop->address());

        $before = [self::requests('GET', $stockPort, '200'), self::requests('GET', $stockPort, '500', '500')];
        $caller = new HttpClient($this->loop);
        $response = $caller->get("{$shopUrl}/order/apple", ['traceparent' => '00-' . self::TRACE . '-00f067aa0ba902b7-01', 'tracestate' => 'vendor=abc'])->await();
        self::assertSame(200, $response->status(), $response->body());
        $failed = $caller->get("{$shopUrl}/order/broken", ['traceparent' => '00-' . self::TRACE . '-00f067aa0ba902b7-01'])->await();
        self::assertSame(200, $failed->status(), $failed->body());
        self::assertSame([$before[0] + 1, $before[1] + 1], [self::requests('GET', $stockPort, '200'), self::requests('GET', $stockPort, '500', '500')], 'http.client.request.duration: one request answered 200, one 500');

        $this->pollUntil(static fn(): bool => \count($collector->trace(self::TRACE)) >= 6);
        $spans = $collector->trace(self::TRACE);
        self::assertCount(6, $spans, implode(', ', array_column($spans, 'name')));
        $orders = array_values(array_filter($spans, static fn(array $s): bool => $s['name'] === 'GET /order/{item}'));
        $clients = array_values(array_filter($spans, static fn(array $s): bool => $s['kind'] === 3));
        $stocks = array_values(array_filter($spans, static fn(array $s): bool => $s['name'] === 'GET /stock/{item}'));
        self::assertCount(2, $orders);
        self::assertCount(2, $clients);
        self::assertCount(2, $stocks);
        foreach ([0, 1] as $i) {
            $order = $orders[$i];
            $client = array_values(array_filter($clients, static fn(array $s): bool => $s['parentSpanId'] === $order['spanId']))[0] ?? null;
            self::assertNotNull($client, 'the client span is a child of the request span that sent it');
            self::assertSame('GET', $client['name']);
            self::assertSame('GET', $client['attributes']['http.request.method']);
            self::assertSame('127.0.0.1', $client['attributes']['server.address']);
            self::assertSame($stockPort, $client['attributes']['server.port']);
            self::assertStringContainsString('?sig=REDACTED&x=1', self::text($client['attributes']['url.full']), 'query secrets are redacted');
            self::assertStringNotContainsString('s3cret', json_encode($client, \JSON_THROW_ON_ERROR));
            $stockSpan = array_values(array_filter($stocks, static fn(array $s): bool => $s['parentSpanId'] === $client['spanId']))[0] ?? null;
            self::assertNotNull($stockSpan, 'the called service continues the trace under the client span');
            $headers = $received[$i];
            self::assertSame('00-' . self::TRACE . '-' . $client['spanId'] . '-01', $headers['traceparent'], "the caller's own traceparent header was replaced");
        }
        [$ok, $broken] = str_contains(self::text($clients[0]['attributes']['url.full']), '/apple') ? $clients : array_reverse($clients);
        self::assertSame(200, $ok['attributes']['http.response.status_code']);
        self::assertSame(0, $ok['status']);
        self::assertArrayNotHasKey('error.type', $ok['attributes']);
        self::assertSame(500, $broken['attributes']['http.response.status_code']);
        self::assertSame('500', $broken['attributes']['error.type']);
        self::assertSame(2, $broken['status'], 'STATUS_CODE_ERROR');
        self::assertSame('vendor=abc', $received[0]['tracestate'], 'the tracestate goes on with the trace');
        self::assertNull($received[1]['tracestate']);

        // The exporter's own requests made no span: every span of the run is one of the six.
        $telemetry->shutdown();
        self::assertCount(6, $collector->spans);
        foreach ($collector->spans as $span) {
            self::assertStringNotContainsString('/v1/traces', self::text($span['attributes']['url.full'] ?? ''));
        }
        self::assertGreaterThan(0, $collector->requests);

        foreach ([$outgoing, $caller] as $client) {
            $client->close();
        }
        $shop->stop(1.0);
        $stock->stop(1.0);
        $collector->stop();
    }

    public function testEveryRequestCountsInTheDurationHistogram(): void
    {
        $app = new Application();
        $app->get('/status/{code}', static fn(string $code): Response => new Response((int) $code, [], ''));
        $server = new HttpServer($this->loop, $app->handler());
        $server->listen('tcp://127.0.0.1:0');
        $url = str_replace('tcp://', 'http://', $server->address());
        $port = (int) substr($url, strrpos($url, ':') + 1);
        $client = new HttpClient($this->loop);
        $quiet = new HttpClient($this->loop, new ClientOptions(instrumented: false));

        for ($i = 0; $i < 3; ++$i) {
            self::assertSame(200, $client->get("{$url}/status/200")->await()->status());
        }
        self::assertSame(405, $client->request('POST', "{$url}/status/200", [], 'x')->await()->status(), 'the route takes GET only');
        self::assertSame(200, $quiet->get("{$url}/status/200")->await()->status());
        self::assertSame(3, self::requests('GET', $port, '200'), 'an uninstrumented client counts nothing');
        self::assertSame(1, self::requests('POST', $port, '405', '405'), 'a 4xx counts with error.type set to its code');
        $registry = new Registry();
        ServedObservability::httpClientMetrics($registry);
        $text = PrometheusText::render($registry->snapshot());
        self::assertStringContainsString("\nhttp_client_request_duration_seconds_count{http_request_method=\"GET\",server_address=\"127.0.0.1\",server_port=\"{$port}\",http_response_status_code=\"200\",error_type=\"\"} 3\n", $text);

        // A request that fails: nobody listens on the port any more.
        $server->stop(1.0);
        $client->close();
        $fresh = new HttpClient($this->loop, new ClientOptions(connectTimeout: 2.0));
        try {
            $fresh->get("{$url}/status/200")->await();
            self::fail('the request must fail: the server is stopped');
        } catch (HttpClientException $e) {
            self::assertSame(1, self::requests('GET', $port, '', $e::class), 'a failure counts with error.type, no status');
        }
        $fresh->close();
        $quiet->close();
    }

    public function testAnUninstrumentedClientMakesNoSpanInTracedWork(): void
    {
        $collector = new OtlpCollector($this->loop);
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(endpoint: $collector->url() . '/v1/traces', scheduleDelay: 0.05), new MemoryLogger());
        $telemetry->install();
        $app = new Application();
        $headers = [];
        $app->get('/', static function (Request $request) use (&$headers): string {
            $headers[] = $request->header('traceparent');

            return 'ok';
        });
        $server = new HttpServer($this->loop, $app->handler());
        $server->listen('tcp://127.0.0.1:0');
        $url = str_replace('tcp://', 'http://', $server->address()) . '/';
        $quiet = new HttpClient($this->loop, new ClientOptions(instrumented: false)); // as the exporter's
        $traced = new HttpClient($this->loop);
        $this->loop->async(function () use ($quiet, $traced, $url): void {
            $scheduler = $this->loop->scheduler();
            $scheduler->trace = new TraceContext(self::TRACE, '3333333333333333');
            try {
                $quiet->get($url)->await();
                $traced->get($url)->await();
            } finally {
                $scheduler->trace = null;
            }
        })->await();
        $telemetry->processor->flush()->await(20.0); // every span exported (a deadline, not a sleep)
        $telemetry->shutdown();
        self::assertNull($headers[0], 'no trace header from the uninstrumented client');
        self::assertIsString($headers[1]);
        self::assertCount(1, $collector->spans, 'one client span: the instrumented client\'s');
        self::assertSame('3333333333333333', $collector->spans[0]['parentSpanId']);
        $quiet->close();
        $traced->close();
        $server->stop(1.0);
        $collector->stop();
    }

    private static function text(mixed $value): string
    {
        self::assertIsString($value);

        return $value;
    }

    /**
     * Requests counted so far with these labels (server.address 127.0.0.1).
     */
    private static function requests(string $method, int $port, string $status, string $errorType = ''): int
    {
        foreach (ClientMetrics::rows() as [$labels, $counts]) {
            if ($labels === [$method, '127.0.0.1', (string) $port, $status, $errorType]) {
                return array_sum($counts);
            }
        }

        return 0;
    }
}
