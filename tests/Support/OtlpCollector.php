<?php

declare(strict_types=1);

namespace Nexus\Tests\Support;

use Nexus\Http\Application;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\Runtime\Loop;
use Opentelemetry\Proto\Collector\Trace\V1\ExportTraceServiceRequest;
use Opentelemetry\Proto\Common\V1\AnyValue;
use Opentelemetry\Proto\Common\V1\KeyValue;

/**
 * A small OTLP/HTTP trace collector for tests: an HTTP server on the test's loop (127.0.0.1, a
 * free port) that takes POST /v1/traces in protobuf or JSON (gzip too) and keeps every span it
 * received, flattened: ids in hex, attributes of the span and of its resource as key => value.
 * $status lets a test make it refuse exports.
 */
final class OtlpCollector
{
    /** @var list<array{traceId: string, spanId: string, parentSpanId: string, name: string, kind: int, status: int, attributes: array<string, mixed>, resource: array<string, mixed>}> */
    public array $spans = [];
    public int $requests = 0;
    /** @var list<string> content types of the requests */
    public array $contentTypes = [];
    /** The status answered to exports (200 accepts them). */
    public int $status = 200;
    private readonly HttpServer $server;

    public function __construct(Loop $loop)
    {
        $app = new Application();
        $app->post('/v1/traces', function (Request $request): Response {
            ++$this->requests;
            $type = (string) $request->header('content-type');
            $this->contentTypes[] = $type;
            $body = $request->body();
            if ($request->header('content-encoding') === 'gzip') {
                $body = (string) gzdecode($body);
            }
            if ($this->status !== 200) {
                return new Response($this->status, ['Content-Type' => 'text/plain'], 'refused by the test');
            }
            str_contains($type, 'json') ? $this->takeJson($body) : $this->takeProtobuf($body);

            return new Response(200, ['Content-Type' => $type], str_contains($type, 'json') ? '{}' : '');
        });
        $this->server = new HttpServer($loop, $app->handler());
        $this->server->listen('tcp://127.0.0.1:0');
    }

    /** http://127.0.0.1:PORT, for OTEL_EXPORTER_OTLP_ENDPOINT */
    public function url(): string
    {
        return str_replace('tcp://', 'http://', $this->server->address());
    }

    public function stop(): void
    {
        $this->server->stop(1.0);
    }

    /**
     * @return list<array{traceId: string, spanId: string, parentSpanId: string, name: string, kind: int, status: int, attributes: array<string, mixed>, resource: array<string, mixed>}>
     */
    public function trace(string $traceId): array
    {
        return array_values(array_filter($this->spans, static fn(array $span): bool => $span['traceId'] === $traceId));
    }

    /**
     * @return array{traceId: string, spanId: string, parentSpanId: string, name: string, kind: int, status: int, attributes: array<string, mixed>, resource: array<string, mixed>}|null
     */
    public function span(string $name): ?array
    {
        foreach ($this->spans as $span) {
            if ($span['name'] === $name) {
                return $span;
            }
        }

        return null;
    }

    private function takeProtobuf(string $body): void
    {
        $request = new ExportTraceServiceRequest();
        $request->mergeFromString($body);
        foreach ($request->getResourceSpans() as $resourceSpans) {
            $resource = self::attributes($resourceSpans->getResource()?->getAttributes() ?? []);
            foreach ($resourceSpans->getScopeSpans() as $scopeSpans) {
                foreach ($scopeSpans->getSpans() as $span) {
                    $this->spans[] = [
                        'traceId' => bin2hex($span->getTraceId()),
                        'spanId' => bin2hex($span->getSpanId()),
                        'parentSpanId' => bin2hex($span->getParentSpanId()),
                        'name' => $span->getName(),
                        'kind' => $span->getKind(),
                        'status' => $span->getStatus()?->getCode() ?? 0,
                        'attributes' => self::attributes($span->getAttributes()),
                        'resource' => $resource,
                    ];
                }
            }
        }
    }

    private function takeJson(string $body): void
    {
        /** @var array{resourceSpans?: list<array{resource?: array{attributes?: list<array<string, mixed>>}, scopeSpans?: list<array{spans?: list<array<string, mixed>>}>}>} $data */
        $data = json_decode($body, true, 64, \JSON_THROW_ON_ERROR);
        foreach ($data['resourceSpans'] ?? [] as $resourceSpans) {
            $resource = self::jsonAttributes($resourceSpans['resource']['attributes'] ?? []);
            foreach ($resourceSpans['scopeSpans'] ?? [] as $scopeSpans) {
                foreach ($scopeSpans['spans'] ?? [] as $span) {
                    /** @var array{traceId: string, spanId: string, parentSpanId?: string, name: string, kind?: int, status?: array{code?: int}, attributes?: list<array<string, mixed>>} $span */
                    $this->spans[] = [
                        'traceId' => $span['traceId'],
                        'spanId' => $span['spanId'],
                        'parentSpanId' => $span['parentSpanId'] ?? '',
                        'name' => $span['name'],
                        'kind' => $span['kind'] ?? 0,
                        'status' => $span['status']['code'] ?? 0,
                        'attributes' => self::jsonAttributes($span['attributes'] ?? []),
                        'resource' => $resource,
                    ];
                }
            }
        }
    }

    /**
     * @param iterable<KeyValue> $attributes
     *
     * @return array<string, mixed>
     */
    private static function attributes(iterable $attributes): array
    {
        $flat = [];
        foreach ($attributes as $attribute) {
            $value = $attribute->getValue();
            $flat[$attribute->getKey()] = $value === null ? null : self::value($value);
        }

        return $flat;
    }

    private static function value(AnyValue $value): mixed
    {
        return match ($value->getValue()) {
            'string_value' => $value->getStringValue(),
            'int_value' => (int) $value->getIntValue(),
            'double_value' => $value->getDoubleValue(),
            'bool_value' => $value->getBoolValue(),
            default => null,
        };
    }

    /**
     * @param list<array<string, mixed>> $attributes
     *
     * @return array<string, mixed>
     */
    private static function jsonAttributes(array $attributes): array
    {
        $flat = [];
        foreach ($attributes as $attribute) {
            $value = \is_array($attribute['value'] ?? null) ? $attribute['value'] : [];
            $key = \is_string($attribute['key'] ?? null) ? $attribute['key'] : '';
            $flat[$key] = match (true) {
                isset($value['stringValue']) => $value['stringValue'],
                isset($value['intValue']) && is_numeric($value['intValue']) => (int) $value['intValue'],
                isset($value['doubleValue']) => $value['doubleValue'],
                isset($value['boolValue']) => $value['boolValue'],
                default => null,
            };
        }

        return $flat;
    }
}
