<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Telemetry;

use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Telemetry\Telemetry;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Tests\Support\OtlpCollector;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Trace\SpanKind;
use PHPUnit\Framework\TestCase;

/**
 * The batch span processor's bound and failures, with the real exporter and HTTP client: a
 * full queue drops new spans and says so once; a collector that refuses or cannot be reached
 * costs the spans of that export, a throttled warning, and nothing else; ending a span never
 * waits for the network.
 */
final class SpanProcessorTest extends TestCase
{
    use RunsTheLoop;

    private Loop $loop;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->giveUpAfter(20.0);
    }

    public function testAFullQueueDropsNewSpansAndSaysSoOnce(): void
    {
        $collector = new OtlpCollector($this->loop);
        $logger = new MemoryLogger();
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(
            endpoint: $collector->url() . '/v1/traces',
            scheduleDelay: 0.05,
            maxQueueSize: 3,
            maxExportBatchSize: 3,
        ), $logger);

        // Ended one after the other in this turn: the export of the first three starts only on
        // the loop's next turn, so the queue is full for the other five.
        for ($i = 0; $i < 8; ++$i) {
            $telemetry->tracer()->startSpan("span {$i}", SpanKind::Internal, null)->end();
        }

        self::assertSame(5, $telemetry->processor->droppedSpans());
        $this->pollUntil(static fn(): bool => \count($collector->spans) === 3);
        self::assertSame(['span 0', 'span 1', 'span 2'], array_column($collector->spans, 'name'));
        $full = array_filter($logger->records, static fn(array $r): bool => str_contains($r['message'], 'span queue is full'));
        self::assertCount(1, $full, 'one warning for the episode');
        $this->pollUntil(static fn(): bool => $telemetry->processor->exportedSpans() === 3);

        $telemetry->tracer()->startSpan('after the episode', SpanKind::Internal, null)->end();
        $telemetry->shutdown();
        self::assertSame('after the episode', $collector->spans[3]['name'] ?? null, 'shutdown() exports what is queued');
        $collector->stop();
    }

    public function testACollectorThatRefusesCostsOnlyThoseSpans(): void
    {
        $collector = new OtlpCollector($this->loop);
        $collector->status = 503;
        $logger = new MemoryLogger();
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(endpoint: $collector->url() . '/v1/traces', scheduleDelay: 0.02), $logger);

        for ($i = 0; $i < 3; ++$i) {
            $telemetry->tracer()->startSpan("refused {$i}", SpanKind::Internal, null)->end();
        }
        $this->pollUntil(static fn(): bool => $telemetry->processor->failedSpans() === 3);
        self::assertCount(0, $collector->spans);
        $warnings = array_values(array_filter($logger->records, static fn(array $r): bool => str_contains($r['message'], 'export(s) to the OTLP collector failed')));
        self::assertCount(1, $warnings);
        $reason = $warnings[0]['context']['reason'] ?? null;
        self::assertIsString($reason);
        self::assertStringContainsString('Export retry limit exceeded', $reason);

        $collector->status = 200;
        $telemetry->tracer()->startSpan('accepted', SpanKind::Internal, null)->end();
        $this->pollUntil(static fn(): bool => \count($collector->spans) === 1);
        self::assertSame('accepted', $collector->spans[0]['name']);
        $telemetry->shutdown();
        $collector->stop();
    }

    public function testAnUnreachableCollectorNeverReachesTheCaller(): void
    {
        // A port nothing listens on: bind one, note it, close it.
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($socket);
        $address = (string) stream_socket_get_name($socket, false);
        fclose($socket);
        $logger = new MemoryLogger();
        $telemetry = new Telemetry($this->loop, new TelemetryConfig(endpoint: "http://{$address}/v1/traces", scheduleDelay: 0.02, maxQueueSize: 10, maxExportBatchSize: 2), $logger);

        for ($i = 0; $i < 10; ++$i) {
            $telemetry->tracer()->startSpan("lost {$i}", SpanKind::Internal, null)->end();
        }
        $this->pollUntil(static fn(): bool => $telemetry->processor->failedSpans() === 10);
        self::assertSame(0, $telemetry->processor->exportedSpans());
        self::assertSame(0, $telemetry->processor->queuedSpans());
        $warnings = array_filter($logger->records, static fn(array $r): bool => str_contains($r['message'], 'export(s) to the OTLP collector failed'));
        self::assertCount(1, $warnings, 'throttled: one warning per 10 s');
        $telemetry->shutdown();
    }
}
