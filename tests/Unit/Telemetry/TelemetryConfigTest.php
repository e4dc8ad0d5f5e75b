<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Telemetry;

use Nexus\Telemetry\OtlpProtocol;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Telemetry\TelemetryConfigurationException;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class TelemetryConfigTest extends TestCase
{
    public function testTracingIsOffUnlessAnExporterIsAskedFor(): void
    {
        self::assertNull(TelemetryConfig::fromEnvironment([]));
        self::assertNull(TelemetryConfig::fromEnvironment(['OTEL_TRACES_EXPORTER' => 'none', 'OTEL_EXPORTER_OTLP_ENDPOINT' => 'http://collector:4318']));
        self::assertNull(TelemetryConfig::fromEnvironment(['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_SDK_DISABLED' => 'TRUE']));
    }

    public function testTheDefaultsOfOtlp(): void
    {
        $config = TelemetryConfig::fromEnvironment(['OTEL_TRACES_EXPORTER' => 'otlp']);

        self::assertNotNull($config);
        self::assertSame('http://localhost:4318/v1/traces', $config->endpoint);
        self::assertSame(OtlpProtocol::HttpProtobuf, $config->protocol);
        self::assertSame('parentbased_always_on', $config->sampler);
        self::assertSame('nexus', $config->serviceName);
        self::assertSame(10.0, $config->exportTimeout);
        self::assertSame(5.0, $config->scheduleDelay);
        self::assertSame(2048, $config->maxQueueSize);
        self::assertSame(512, $config->maxExportBatchSize);
        self::assertFalse($config->gzip);
    }

    public function testTheStandardVariablesAreRead(): void
    {
        $config = TelemetryConfig::fromEnvironment([
            'OTEL_TRACES_EXPORTER' => 'otlp',
            'OTEL_EXPORTER_OTLP_ENDPOINT' => 'https://collector.example:4318/',
            'OTEL_EXPORTER_OTLP_PROTOCOL' => 'http/json',
            'OTEL_EXPORTER_OTLP_HEADERS' => 'api-key=secret%20one,x-team=core',
            'OTEL_EXPORTER_OTLP_TRACES_HEADERS' => 'api-key=traces',
            'OTEL_EXPORTER_OTLP_COMPRESSION' => 'gzip',
            'OTEL_EXPORTER_OTLP_TIMEOUT' => '2500',
            'OTEL_TRACES_SAMPLER' => 'parentbased_traceidratio',
            'OTEL_TRACES_SAMPLER_ARG' => '0.25',
            'OTEL_RESOURCE_ATTRIBUTES' => 'deployment.environment=staging,service.name=from-resource',
            'OTEL_SERVICE_NAME' => 'orders',
            'OTEL_BSP_SCHEDULE_DELAY' => '200',
            'OTEL_BSP_MAX_QUEUE_SIZE' => '100',
            'OTEL_BSP_MAX_EXPORT_BATCH_SIZE' => '10',
        ]);

        self::assertNotNull($config);
        self::assertSame('https://collector.example:4318/v1/traces', $config->endpoint);
        self::assertSame(OtlpProtocol::HttpJson, $config->protocol);
        self::assertSame(['api-key' => 'traces', 'x-team' => 'core'], $config->headers);
        self::assertTrue($config->gzip);
        self::assertSame(2.5, $config->exportTimeout);
        self::assertSame('parentbased_traceidratio', $config->sampler);
        self::assertSame(0.25, $config->samplerRatio);
        self::assertSame('orders', $config->serviceName, 'OTEL_SERVICE_NAME wins over service.name in the resource');
        self::assertSame(['deployment.environment' => 'staging'], $config->resourceAttributes);
        self::assertSame(0.2, $config->scheduleDelay);
        self::assertSame(100, $config->maxQueueSize);
        self::assertSame(10, $config->maxExportBatchSize);
    }

    public function testThePerSignalEndpointIsUsedAsItIs(): void
    {
        $config = TelemetryConfig::fromEnvironment([
            'OTEL_TRACES_EXPORTER' => 'otlp',
            'OTEL_EXPORTER_OTLP_ENDPOINT' => 'http://ignored:4318',
            'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' => 'http://127.0.0.1:9999/custom/path',
            'OTEL_SERVICE_NAME' => '',
            'OTEL_RESOURCE_ATTRIBUTES' => 'service.name=billing',
        ]);

        self::assertSame('http://127.0.0.1:9999/custom/path', $config?->endpoint);
        self::assertSame('billing', $config->serviceName);
    }

    /**
     * @return iterable<string, array{array<string, string>, string}>
     */
    public static function unusable(): iterable
    {
        yield 'another exporter' => [['OTEL_TRACES_EXPORTER' => 'zipkin'], "OTEL_TRACES_EXPORTER='zipkin'"];
        yield 'two exporters' => [['OTEL_TRACES_EXPORTER' => 'otlp,console'], 'otlp only'];
        yield 'grpc' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_EXPORTER_OTLP_PROTOCOL' => 'grpc'], 'grpc needs HTTP/2'];
        yield 'no scheme' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_EXPORTER_OTLP_ENDPOINT' => 'collector:4318'], 'is not an http:// or https:// URL'];
        yield 'bad compression' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_EXPORTER_OTLP_COMPRESSION' => 'br'], 'use gzip or none'];
        yield 'unknown sampler' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_TRACES_SAMPLER' => 'sometimes'], "OTEL_TRACES_SAMPLER='sometimes'"];
        yield 'ratio above 1' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_TRACES_SAMPLER' => 'traceidratio', 'OTEL_TRACES_SAMPLER_ARG' => '2'], 'between 0 and 1'];
        yield 'not a number' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_BSP_SCHEDULE_DELAY' => 'soon'], "OTEL_BSP_SCHEDULE_DELAY='soon' is not a number"];
        yield 'batch above queue' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_BSP_MAX_QUEUE_SIZE' => '10', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE' => '20'], 'at most OTEL_BSP_MAX_QUEUE_SIZE'];
        yield 'header without value' => [['OTEL_TRACES_EXPORTER' => 'otlp', 'OTEL_EXPORTER_OTLP_HEADERS' => 'justakey'], "'justakey' is not one"];
    }

    /**
     * @param array<string, string> $env
     */
    #[DataProvider('unusable')]
    public function testAnUnusableValueIsNamed(array $env, string $message): void
    {
        $this->expectException(TelemetryConfigurationException::class);
        $this->expectExceptionMessage($message);

        TelemetryConfig::fromEnvironment($env);
    }
}
