<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Telemetry;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\HttpClient\HttpClient;
use Nexus\Log\MemoryLogger;
use Nexus\Postgres\PgPool;
use Nexus\Runtime\Future;
use Nexus\Telemetry\Telemetry;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Tests\Integration\Postgres\PostgresTestCase;
use Nexus\Tests\Support\OtlpCollector;
use Nexus\Trace\Tracing;

/**
 * Queries made by a traced handler are client spans of its request, also when the query waits
 * for a pooled connection; the statement is recorded, cut to Tracing::MAX_STATEMENT bytes, and
 * a failed query marks its span. Untraced queries make no span.
 */
final class PostgresSpansTest extends PostgresTestCase
{
    protected function tearDown(): void
    {
        Tracing::$tracer = null;
        parent::tearDown();
    }

    public function testQueriesOfATracedRequestAreItsChildren(): void
    {
        $collector = new OtlpCollector($this->loop);
        $logger = new MemoryLogger();
        $system = new ActorSystem('pg-traced', $logger, $this->loop);
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(endpoint: $collector->url() . '/v1/traces', scheduleDelay: 0.05), $logger);
        $telemetry->install();
        $pool = new PgPool($this->loop, $this->config(), 1); // one connection: the second request's query waits for it
        $long = 'SELECT $1::text AS tag, pg_sleep(0.05) /* ' . str_repeat('x', 2000) . ' */';
        $app = new Application($system);
        $telemetry->instrument($app);
        $app->get('/query/{tag}', static function (string $tag) use ($pool, $long): array {
            $rows = $pool->query($long, [$tag])->rows();
            try {
                $pool->query('SELECT no_such_column FROM no_such_table');
            } catch (\Throwable) {
                // recorded on its span
            }

            return ['tag' => $rows[0]['tag'] ?? null];
        });
        $server = new HttpServer($this->loop, $app->handler());
        $server->listen('tcp://127.0.0.1:0');
        $url = str_replace('tcp://', 'http://', $server->address());
        $client = new HttpClient($this->loop);

        $pool->query('SELECT 1'); // untraced: no span
        $responses = Future::all([
            $client->get("{$url}/query/a", ['traceparent' => '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-1111111111111111-01']),
            $client->get("{$url}/query/b", ['traceparent' => '00-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-2222222222222222-01']),
        ])->await();
        foreach ($responses as $response) {
            self::assertSame(200, $response->status(), $response->body());
        }

        foreach (['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'] as $traceId) {
            $this->pollUntil(static fn(): bool => \count($collector->trace($traceId)) >= 3);
            $spans = array_column($collector->trace($traceId), null, 'name');
            self::assertArrayHasKey('GET /query/{tag}', $spans, implode(', ', array_keys($spans)));
            $http = $spans['GET /query/{tag}'];
            $select = $failed = null;
            foreach ($collector->trace($traceId) as $span) {
                $statement = $span['attributes']['db.statement'] ?? '';
                if (\is_string($statement) && str_starts_with($statement, 'SELECT $1::text')) {
                    $select = $span;
                } elseif (\is_string($statement) && str_contains($statement, 'no_such_table')) {
                    $failed = $span;
                }
            }
            self::assertNotNull($select, implode(', ', array_keys($spans)));
            self::assertSame('SELECT ' . $this->config()->database, $select['name']);
            self::assertSame($http['spanId'], $select['parentSpanId']);
            self::assertSame(3, $select['kind'], 'SPAN_KIND_CLIENT');
            self::assertSame('postgresql', $select['attributes']['db.system']);
            self::assertSame('SELECT', $select['attributes']['db.operation']);
            // The stable database conventions beside the earlier names.
            self::assertSame('postgresql', $select['attributes']['db.system.name']);
            self::assertSame('SELECT', $select['attributes']['db.operation.name']);
            self::assertSame($this->config()->database, $select['attributes']['db.namespace']);
            self::assertSame($this->config()->host, $select['attributes']['server.address']);
            self::assertSame($this->config()->port, $select['attributes']['server.port']);
            self::assertSame($select['attributes']['db.statement'], $select['attributes']['db.query.text']);
            $statement = $select['attributes']['db.statement'];
            self::assertIsString($statement);
            self::assertSame(Tracing::MAX_STATEMENT, \strlen($statement));
            self::assertStringEndsWith('...', $statement);
            self::assertStringNotContainsString("'a'", $statement, 'parameters are never recorded');
            self::assertSame(0, $select['status']);
            self::assertNotNull($failed);
            self::assertSame($http['spanId'], $failed['parentSpanId']);
            self::assertSame(2, $failed['status'], 'STATUS_CODE_ERROR');
            self::assertSame('42P01', $failed['attributes']['error.type'], 'the SQLSTATE: undefined table');
            self::assertSame('42P01', $failed['attributes']['db.response.status_code']);
        }
        self::assertCount(6, $collector->spans, 'the untraced query made no span');

        $telemetry->shutdown();
        $client->close();
        $server->stop(1.0);
        $collector->stop();
        $pool->close();
        $system->shutdown();
        $system->run();
    }
}
