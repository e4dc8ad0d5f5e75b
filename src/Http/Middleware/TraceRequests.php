<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Runtime\Scheduler;
use Nexus\Trace\Span;
use Nexus\Trace\SpanKind;
use Nexus\Trace\TraceContext;
use Nexus\Trace\Tracer;

/**
 * Traces every request: a server span named "METHOD /route/{template}", child of the request's
 * W3C `traceparent` when it carries a valid one (a malformed one is ignored: the request starts a
 * new trace and the client sees no error), with the OpenTelemetry HTTP semantic attributes
 * (http.request.method, http.route, http.response.status_code, url.path, url.scheme, ...). While
 * the handler runs, its task carries the span's context (Scheduler::$trace), so the actors it
 * tells or asks, here or on another worker, and its database queries join the trace.
 *
 * Added by Telemetry::instrument() only when tracing is on; an Application with this middleware
 * makes its routes record their template (RouteTemplate). The span ends when the handler has
 * returned its response (a streamed body may still be sent after); a 5xx or an exception marks
 * it failed.
 */
final class TraceRequests implements Middleware
{
    private const METHODS = ['GET' => true, 'HEAD' => true, 'POST' => true, 'PUT' => true, 'DELETE' => true,
        'CONNECT' => true, 'OPTIONS' => true, 'TRACE' => true, 'PATCH' => true];

    public function __construct(
        private readonly Tracer $tracer,
        private readonly Scheduler $scheduler,
        private readonly string $scheme = 'http',
    ) {}

    public function process(Request $request, RequestHandler $next): Response
    {
        $parent = TraceContext::fromHeaders($request->header('traceparent'), $request->header('tracestate'));
        $method = $request->method();
        $known = isset(self::METHODS[$method]);
        $attributes = [
            'http.request.method' => $known ? $method : '_OTHER',
            'url.path' => $request->path(),
            'url.scheme' => $this->scheme,
            'network.protocol.version' => $request->protocolVersion(),
        ];
        if (!$known) {
            $attributes['http.request.method_original'] = $method;
        }
        if ($request->query() !== '') {
            $attributes['url.query'] = $request->query();
        }
        $agent = $request->header('user-agent');
        if ($agent !== null) {
            $attributes['user_agent.original'] = $agent;
        }
        $host = $request->header('host');
        if ($host !== null) {
            $attributes['server.address'] = $host;
        }
        $name = $known ? $method : 'HTTP';
        $span = $this->tracer->startSpan($name, SpanKind::Server, $parent, $attributes);
        $previous = $this->scheduler->trace;
        $this->scheduler->trace = $span->context();
        try {
            $response = $next->handle($request);
        } catch (\Throwable $e) {
            $this->scheduler->trace = $previous;
            self::route($span, $name, $request);
            $span->setAttribute('error.type', $e::class);
            $span->fail($e);
            $span->end();

            throw $e;
        }
        $this->scheduler->trace = $previous;
        self::route($span, $name, $request);
        $status = $response->status;
        $span->setAttribute('http.response.status_code', $status);
        if ($status >= 500) {
            $span->setAttribute('error.type', (string) $status);
            $span->failWith("HTTP {$status}");
        }
        $span->end();

        return $response;
    }

    private static function route(Span $span, string $name, Request $request): void
    {
        $route = $request->attributes[RouteTemplate::ATTRIBUTE] ?? null;
        if (\is_string($route)) {
            $span->rename("{$name} {$route}");
            $span->setAttribute('http.route', $route);
        }
    }
}
