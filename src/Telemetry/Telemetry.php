<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

use Nexus\Http\Application;
use Nexus\Http\Middleware\TraceRequests;
use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\HttpClient;
use Nexus\HttpClient\Psr\Psr18Client;
use Nexus\HttpClient\RequestOptions;
use Nexus\Runtime\Loop;
use Nexus\Trace\Tracer;
use Nexus\Trace\Tracing;
use Nyholm\Psr7\Factory\Psr17Factory;
use OpenTelemetry\API\LoggerHolder;
use OpenTelemetry\Contrib\Otlp\SpanExporter;
use OpenTelemetry\SDK\Common\Attribute\Attributes;
use OpenTelemetry\SDK\Common\Export\Http\PsrTransport;
use OpenTelemetry\SDK\Resource\ResourceInfo;
use OpenTelemetry\SDK\Trace\Sampler\AlwaysOffSampler;
use OpenTelemetry\SDK\Trace\Sampler\AlwaysOnSampler;
use OpenTelemetry\SDK\Trace\Sampler\ParentBased;
use OpenTelemetry\SDK\Trace\Sampler\TraceIdRatioBasedSampler;
use OpenTelemetry\SDK\Trace\SamplerInterface;
use OpenTelemetry\SDK\Trace\TracerProvider;
use Psr\Log\LoggerInterface;

/**
 * OpenTelemetry tracing for one process (a worker, or `nexus serve` with one worker): the SDK's
 * tracer provider with the sampler and resource the OTEL_* variables ask for, a LoopSpanProcessor,
 * and the OTLP/HTTP exporter sending through the Nexus HTTP client's PSR-18 adapter, on the
 * worker's own loop. See docs/observability.md, "Traces".
 *
 *     $telemetry = Telemetry::fromEnvironment($loop, $logger); // null: tracing is off
 *     $telemetry?->install();            // actors, PostgreSQL, Redis and the HTTP client trace traced work
 *     $telemetry?->instrument($app);     // HTTP requests start (or continue) traces
 *     ...
 *     $telemetry?->shutdown();           // exports what is queued, at most $timeout seconds
 *
 * The exporter sends each batch once (the SDK transport's retries would sleep in the worker);
 * a batch that fails is logged and dropped (LoopSpanProcessor).
 */
final class Telemetry
{
    private readonly TracerProvider $provider;
    private readonly OtelTracer $tracer;
    private readonly HttpClient $client;
    public readonly LoopSpanProcessor $processor;

    /**
     * @param array<string, string|int|float|bool> $resource attributes of this process, such as nexus.worker
     */
    public function __construct(
        private readonly Loop $loop,
        public readonly TelemetryConfig $config,
        LoggerInterface $logger,
        array $resource = [],
    ) {
        // The SDK logs through the worker's logger, each message at most once per 10 s.
        LoggerHolder::set(new ThrottledLogger($logger, $loop->now(...)));
        $this->client = new HttpClient($loop, new ClientOptions(
            connectTimeout: min(10.0, $config->exportTimeout),
            headTimeout: $config->exportTimeout,
            idleTimeout: $config->exportTimeout,
            totalTimeout: $config->exportTimeout,
            maxConnectionsPerOrigin: 2,
            instrumented: false, // the exporter's own requests never make spans (no feedback loop) nor count as the application's
        ));
        $factory = new Psr17Factory();
        $transport = new RecordingTransport(new PsrTransport(
            new Psr18Client($this->client, new RequestOptions(totalTimeout: $config->exportTimeout)),
            $factory,
            $factory,
            $config->endpoint,
            $config->protocol->contentType(),
            $config->headers,
            $config->gzip ? ['gzip'] : [],
            100,
            0, // no retries: PsrTransport waits between them with time_nanosleep(), which would stall the worker
        ));
        $this->processor = new LoopSpanProcessor(
            $loop,
            new SpanExporter($transport),
            $logger,
            $config->maxQueueSize,
            $config->maxExportBatchSize,
            $config->scheduleDelay,
            $transport,
        );
        $this->provider = new TracerProvider(
            [$this->processor],
            self::sampler($config),
            ResourceInfo::create(Attributes::create([
                'service.name' => $config->serviceName,
                'telemetry.sdk.name' => 'opentelemetry',
                'telemetry.sdk.language' => 'php',
                'process.pid' => getmypid(),
                ...$config->resourceAttributes,
                ...$resource,
            ])),
        );
        $this->tracer = new OtelTracer($this->provider->getTracer('nexus'));
    }

    /**
     * Tracing as the OTEL_* variables ask for it, or null when they leave it off (the default).
     *
     * @param array<string, string>|null $env the variables (getenv() when null)
     * @param array<string, string|int|float|bool> $resource attributes of this process
     *
     * @throws TelemetryConfigurationException
     */
    public static function fromEnvironment(Loop $loop, LoggerInterface $logger, ?array $env = null, array $resource = []): ?self
    {
        $config = TelemetryConfig::fromEnvironment($env);

        return $config === null ? null : new self($loop, $config, $logger, $resource);
    }

    public function tracer(): Tracer
    {
        return $this->tracer;
    }

    /**
     * Makes this the tracer of the process (Tracing::$tracer): messages sent from traced work,
     * and the PostgreSQL statements, Redis commands and HTTP client requests made in it, get spans.
     */
    public function install(): void
    {
        Tracing::$tracer = $this->tracer;
    }

    /**
     * Adds the TraceRequests middleware to $app (before its other global middleware, when
     * called before they are added): every request gets a server span.
     */
    public function instrument(Application $app): void
    {
        $app->middleware(new TraceRequests($this->tracer, $this->loop->scheduler()));
    }

    /**
     * Exports what is queued (waiting at most $timeout seconds), closes the exporter's
     * connections and uninstalls the tracer. From top-level code it runs the loop meanwhile.
     */
    public function shutdown(float $timeout = 5.0): void
    {
        try {
            $this->processor->flush()->await($timeout);
        } catch (\Throwable) {
            // What did not leave in time is lost; the processor counted and logged its failures.
        }
        $this->processor->shutdown();
        $this->client->close();
        if (Tracing::$tracer === $this->tracer) {
            Tracing::$tracer = null;
        }
    }

    private static function sampler(TelemetryConfig $config): SamplerInterface
    {
        return match ($config->sampler) {
            'always_on' => new AlwaysOnSampler(),
            'always_off' => new AlwaysOffSampler(),
            'traceidratio' => new TraceIdRatioBasedSampler($config->samplerRatio),
            'parentbased_always_off' => new ParentBased(new AlwaysOffSampler()),
            'parentbased_traceidratio' => new ParentBased(new TraceIdRatioBasedSampler($config->samplerRatio)),
            default => new ParentBased(new AlwaysOnSampler()),
        };
    }
}
