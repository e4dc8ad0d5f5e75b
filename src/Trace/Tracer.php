<?php

declare(strict_types=1);

namespace Nexus\Trace;

/**
 * Starts spans. The instrumented parts of Nexus (the HTTP server and client, actors, the
 * PostgreSQL and Redis clients) see tracing only through this interface and Tracing; an OpenTelemetry SDK stands behind it
 * (Nexus\Telemetry), or a test's own.
 */
interface Tracer
{
    /**
     * @param non-empty-string                                $name
     * @param TraceContext|null                               $parent     null starts a new trace
     * @param array<non-empty-string, string|int|float|bool> $attributes
     */
    public function startSpan(string $name, SpanKind $kind, ?TraceContext $parent, array $attributes = []): Span;
}
