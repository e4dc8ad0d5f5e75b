<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * A request handler measured by HttpServerMetrics (HttpServerMetrics::wrap()): the same figures as
 * the middleware, one call instead of a middleware layer and the error handler Application adds
 * inside global middleware.
 *
 * Per request: two hrtime() calls, the active count up and down, one lookup in its own cache of
 * series (by route template, method as sent, status; at most the metric's maxSeries entries,
 * past which HttpServerMetrics::series() is asked each time) and one observe().
 */
final class MeasuredHandler implements RequestHandler
{
    /** @var array<string, array<string, array<int, HistogramSeries>>> by route, method as sent, status */
    private array $series = [];
    private int $cached = 0;

    public function __construct(
        private readonly HttpServerMetrics $metrics,
        private readonly RequestHandler $handler,
    ) {}

    public function handle(Request $request): Response
    {
        // HttpServerMetrics::process() written out, with a cache of its own: no call but the
        // handler's and observe() per request.
        $start = hrtime(true);
        ++$this->metrics->active;
        try {
            $response = $this->handler->handle($request);
        } catch (\Throwable $e) {
            --$this->metrics->active;
            $this->metrics->series($request->routeTemplate ?? '', $request->method(), 500)->observe((hrtime(true) - $start) / 1e9);

            throw $e;
        }
        --$this->metrics->active;
        ($this->series[$request->routeTemplate ?? ''][$request->method()][$response->status] ?? $this->resolve($request, $response->status))
            ->observe((hrtime(true) - $start) / 1e9);

        return $response;
    }

    private function resolve(Request $request, int $status): HistogramSeries
    {
        $route = $request->routeTemplate ?? '';
        $method = $request->method();
        $series = $this->metrics->series($route, $method, $status);
        // Bounded like the metric: methods outside the registered ones would otherwise each take an entry.
        if ($this->cached < $this->metrics->duration->maxSeries) {
            $this->series[$route][$method][$status] = $series;
            ++$this->cached;
        }

        return $series;
    }
}
