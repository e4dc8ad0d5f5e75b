<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

use Nexus\Trace\Span;
use Nexus\Trace\TraceContext;
use OpenTelemetry\API\Trace\SpanInterface;
use OpenTelemetry\API\Trace\StatusCode;

/**
 * A Nexus span over an OpenTelemetry SDK span.
 *
 * @internal made by OtelTracer
 */
final class OtelSpan implements Span
{
    private ?TraceContext $context = null;

    public function __construct(private readonly SpanInterface $span) {}

    public function context(): TraceContext
    {
        if ($this->context === null) {
            $context = $this->span->getContext();
            $this->context = new TraceContext(
                $context->getTraceId(),
                $context->getSpanId(),
                $context->getTraceFlags() & 0xFF,
                (string) $context->getTraceState(),
            );
        }

        return $this->context;
    }

    public function setAttribute(string $key, string|int|float|bool $value): void
    {
        $this->span->setAttribute($key, $value);
    }

    public function rename(string $name): void
    {
        $this->span->updateName($name);
    }

    public function fail(\Throwable $error): void
    {
        $this->span->recordException($error);
        $this->span->setStatus(StatusCode::STATUS_ERROR, $error->getMessage());
    }

    public function failWith(string $description): void
    {
        $this->span->setStatus(StatusCode::STATUS_ERROR, $description);
    }

    public function end(): void
    {
        $this->span->end();
    }
}
