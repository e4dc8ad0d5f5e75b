<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

/**
 * Tracing settings, read from the standard OpenTelemetry environment variables. Tracing is off
 * unless OTEL_TRACES_EXPORTER=otlp (and OTEL_SDK_DISABLED is not true): fromEnvironment() then
 * returns null. Unlike the OpenTelemetry SDKs, whose default exporter is otlp, Nexus traces only
 * when asked to, so that a server started without these variables pays nothing for tracing.
 *
 * Variables read (defaults in brackets): OTEL_SDK_DISABLED [false], OTEL_TRACES_EXPORTER [none;
 * otlp or none], OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT [http://localhost:4318; the generic one gets
 * /v1/traces appended, the per-signal one is used as it is], OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL
 * [http/protobuf; or http/json], OTEL_EXPORTER_OTLP[_TRACES]_HEADERS [none; k=v,k2=v2, URL-encoded],
 * OTEL_EXPORTER_OTLP[_TRACES]_COMPRESSION [none; or gzip], OTEL_EXPORTER_OTLP[_TRACES]_TIMEOUT
 * [10000 ms], OTEL_TRACES_SAMPLER [parentbased_always_on; always_on, always_off, traceidratio,
 * parentbased_always_off, parentbased_traceidratio], OTEL_TRACES_SAMPLER_ARG [1.0, the ratio],
 * OTEL_SERVICE_NAME [nexus], OTEL_RESOURCE_ATTRIBUTES [none; k=v,k2=v2], OTEL_BSP_SCHEDULE_DELAY
 * [5000 ms], OTEL_BSP_EXPORT_TIMEOUT [30000 ms], OTEL_BSP_MAX_QUEUE_SIZE [2048 spans],
 * OTEL_BSP_MAX_EXPORT_BATCH_SIZE [512 spans, at most the queue size].
 */
final readonly class TelemetryConfig
{
    public const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

    /**
     * @param array<string, string> $headers
     * @param array<string, string> $resourceAttributes
     * @param value-of<self::SAMPLERS> $sampler
     */
    public function __construct(
        public string $endpoint = 'http://localhost:4318/v1/traces',
        public OtlpProtocol $protocol = OtlpProtocol::HttpProtobuf,
        public array $headers = [],
        public bool $gzip = false,
        /** Seconds one export may take, connection included (the smaller of the OTLP and BSP timeouts). */
        public float $exportTimeout = 10.0,
        public string $sampler = 'parentbased_always_on',
        public float $samplerRatio = 1.0,
        public string $serviceName = 'nexus',
        public array $resourceAttributes = [],
        /** Seconds between exports of what has queued (fewer than a batch). */
        public float $scheduleDelay = 5.0,
        public int $maxQueueSize = 2048,
        public int $maxExportBatchSize = 512,
    ) {
        if ($maxQueueSize < 1 || $maxExportBatchSize < 1 || $maxExportBatchSize > $maxQueueSize) {
            throw new TelemetryConfigurationException("OTEL_BSP_MAX_EXPORT_BATCH_SIZE ({$maxExportBatchSize}) must be at least 1 and at most OTEL_BSP_MAX_QUEUE_SIZE ({$maxQueueSize}).");
        }
        if (!($scheduleDelay > 0.0) || !($exportTimeout > 0.0)) {
            throw new TelemetryConfigurationException('OTEL_BSP_SCHEDULE_DELAY and the export timeouts must be above 0 ms.');
        }
        if (!($samplerRatio >= 0.0 && $samplerRatio <= 1.0)) {
            throw new TelemetryConfigurationException("OTEL_TRACES_SAMPLER_ARG is a ratio between 0 and 1, got {$samplerRatio}.");
        }
    }

    /**
     * The settings the variables ask for, or null when tracing is off.
     *
     * @param array<string, string>|null $env the variables (getenv() when null)
     *
     * @throws TelemetryConfigurationException naming the variable that holds a value Nexus cannot use
     */
    public static function fromEnvironment(?array $env = null): ?self
    {
        $env ??= getenv();
        $get = static function (string $name) use ($env): ?string {
            $value = isset($env[$name]) ? trim($env[$name]) : '';

            return $value === '' ? null : $value;
        };
        if (strtolower($get('OTEL_SDK_DISABLED') ?? 'false') === 'true') {
            return null;
        }
        $exporters = array_map(trim(...), explode(',', strtolower($get('OTEL_TRACES_EXPORTER') ?? 'none')));
        $exporters = array_values(array_filter($exporters, static fn(string $e): bool => $e !== 'none' && $e !== ''));
        if ($exporters === []) {
            return null;
        }
        if ($exporters !== ['otlp']) {
            throw new TelemetryConfigurationException(\sprintf(
                "OTEL_TRACES_EXPORTER='%s': Nexus exports traces with otlp only; set it to otlp, or to none (or leave it unset) to keep tracing off.",
                $get('OTEL_TRACES_EXPORTER'),
            ));
        }
        $signal = static fn(string $suffix): ?string => $get("OTEL_EXPORTER_OTLP_TRACES_{$suffix}") ?? $get("OTEL_EXPORTER_OTLP_{$suffix}");

        $protocolName = $signal('PROTOCOL') ?? OtlpProtocol::HttpProtobuf->value;
        $protocol = OtlpProtocol::tryFrom(strtolower($protocolName)) ?? throw new TelemetryConfigurationException(
            "OTEL_EXPORTER_OTLP_PROTOCOL='{$protocolName}': Nexus sends OTLP over HTTP only, as http/protobuf (the default) or http/json; grpc needs HTTP/2, which its HTTP client does not speak.",
        );

        $endpoint = $get('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
        if ($endpoint === null) {
            $base = $get('OTEL_EXPORTER_OTLP_ENDPOINT') ?? 'http://localhost:4318';
            $endpoint = rtrim($base, '/') . '/v1/traces';
        }
        $scheme = parse_url($endpoint, \PHP_URL_SCHEME);
        $host = parse_url($endpoint, \PHP_URL_HOST);
        if (!\in_array($scheme, ['http', 'https'], true) || !\is_string($host) || $host === '') {
            throw new TelemetryConfigurationException("The OTLP endpoint '{$endpoint}' is not an http:// or https:// URL with a host (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).");
        }

        // The per-signal headers win over the generic ones of the same name.
        $headers = self::pairs($get('OTEL_EXPORTER_OTLP_TRACES_HEADERS'), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')
            + self::pairs($get('OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS');

        $compression = strtolower($signal('COMPRESSION') ?? 'none');
        if ($compression !== 'none' && $compression !== 'gzip') {
            throw new TelemetryConfigurationException("OTEL_EXPORTER_OTLP_COMPRESSION='{$compression}': use gzip or none.");
        }

        $sampler = strtolower($get('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on');
        if (!\in_array($sampler, self::SAMPLERS, true)) {
            throw new TelemetryConfigurationException("OTEL_TRACES_SAMPLER='{$sampler}': use one of " . implode(', ', self::SAMPLERS) . '.');
        }
        $ratio = 1.0;
        if (str_ends_with($sampler, 'traceidratio')) {
            $ratio = self::number($get('OTEL_TRACES_SAMPLER_ARG'), 'OTEL_TRACES_SAMPLER_ARG', 1.0);
        }

        $resource = self::pairs($get('OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES');
        $service = $get('OTEL_SERVICE_NAME') ?? $resource['service.name'] ?? 'nexus';
        unset($resource['service.name']);

        $otlpTimeout = self::number($signal('TIMEOUT'), 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000.0) / 1000.0;
        $bspTimeout = self::number($get('OTEL_BSP_EXPORT_TIMEOUT'), 'OTEL_BSP_EXPORT_TIMEOUT', 30_000.0) / 1000.0;

        return new self(
            endpoint: $endpoint,
            protocol: $protocol,
            headers: $headers,
            gzip: $compression === 'gzip',
            exportTimeout: min($otlpTimeout, $bspTimeout),
            sampler: $sampler,
            samplerRatio: $ratio,
            serviceName: $service,
            resourceAttributes: $resource,
            scheduleDelay: self::number($get('OTEL_BSP_SCHEDULE_DELAY'), 'OTEL_BSP_SCHEDULE_DELAY', 5000.0) / 1000.0,
            maxQueueSize: (int) self::number($get('OTEL_BSP_MAX_QUEUE_SIZE'), 'OTEL_BSP_MAX_QUEUE_SIZE', 2048.0),
            maxExportBatchSize: (int) self::number($get('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'), 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512.0),
        );
    }

    private static function number(?string $value, string $name, float $default): float
    {
        if ($value === null) {
            return $default;
        }
        if (!is_numeric($value) || (float) $value < 0.0) {
            throw new TelemetryConfigurationException("{$name}='{$value}' is not a number of 0 or more.");
        }

        return (float) $value;
    }

    /**
     * "k=v,k2=v2" with URL-encoded keys and values (W3C Baggage style, as the OTEL_* lists are).
     *
     * @return array<string, string>
     */
    private static function pairs(?string $list, string $name): array
    {
        if ($list === null) {
            return [];
        }
        $pairs = [];
        foreach (explode(',', $list) as $pair) {
            if (trim($pair) === '') {
                continue;
            }
            $equals = strpos($pair, '=');
            $key = $equals === false ? '' : trim(rawurldecode(substr($pair, 0, $equals)));
            if ($key === '') {
                throw new TelemetryConfigurationException("{$name} is a list of key=value pairs separated by commas; '{$pair}' is not one.");
            }
            $pairs[$key] = trim(rawurldecode(substr($pair, $equals + 1)));
        }

        return $pairs;
    }
}
