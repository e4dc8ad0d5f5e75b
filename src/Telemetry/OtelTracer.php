<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

use Nexus\Trace\Span;
use Nexus\Trace\SpanKind;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracer;
use OpenTelemetry\API\Trace\Span as ApiSpan;
use OpenTelemetry\API\Trace\SpanContext;
use OpenTelemetry\API\Trace\SpanKind as ApiSpanKind;
use OpenTelemetry\API\Trace\TracerInterface;
use OpenTelemetry\API\Trace\TraceState;
use OpenTelemetry\Context\Context;

/**
 * The Nexus Tracer over an OpenTelemetry SDK tracer. The parent of every span is given
 * explicitly (from Scheduler::$trace or a message's envelope), never taken from the SDK's
 * ambient context storage, which knows nothing of the loop's fibers.
 */
final class OtelTracer implements Tracer
{
    public function __construct(private readonly TracerInterface $tracer) {}

    public function startSpan(string $name, SpanKind $kind, ?TraceContext $parent, array $attributes = []): Span
    {
        $builder = $this->tracer->spanBuilder($name)
            ->setSpanKind(match ($kind) {
                SpanKind::Server => ApiSpanKind::KIND_SERVER,
                SpanKind::Client => ApiSpanKind::KIND_CLIENT,
                SpanKind::Consumer => ApiSpanKind::KIND_CONSUMER,
                SpanKind::Producer => ApiSpanKind::KIND_PRODUCER,
                SpanKind::Internal => ApiSpanKind::KIND_INTERNAL,
            })
            ->setParent($parent === null ? false : Context::getRoot()->withContextValue(ApiSpan::wrap(SpanContext::createFromRemoteParent(
                $parent->traceId,
                $parent->spanId,
                $parent->flags,
                $parent->traceState === '' ? null : new TraceState($parent->traceState),
            ))));
        foreach ($attributes as $key => $value) {
            $builder->setAttribute($key, $value);
        }

        return new OtelSpan($builder->startSpan());
    }
}
