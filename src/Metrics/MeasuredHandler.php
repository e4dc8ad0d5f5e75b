<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Http\Middleware\ErrorHandler;
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
 * past which HttpServerMetrics::series() is asked each time) and one observe(). Around an
 * application's handler (an ErrorHandler around its router) it calls the router itself and the
 * error handler only for what the router throws: the same answers, one handler call fewer.
 */
final class MeasuredHandler implements RequestHandler
{
    /** @var array<string, array<string, array<int, HistogramSeries>>> by route, method as sent, status */
    private array $series = [];
    private int $cached = 0;

    /**
     * @param ErrorHandler|null $errors answers what $handler throws (the error handler it was
     *                                  wrapped in, taken apart: see HttpServerMetrics::wrap())
     */
    public function __construct(
        private readonly HttpServerMetrics $metrics,
        private readonly RequestHandler $handler,
        private readonly ?ErrorHandler $errors = null,
    ) {}

    public function handle(Request $request): Response
    {
        // HttpServerMetrics::process() written out, with a cache of its own: no call but the
        // handler's and observe() per request.
        $start = hrtime(true);
        $metrics = $this->metrics;
        ++$metrics->active;
        try {
            $response = $this->handler->handle($request);
        } catch (\Throwable $e) {
            $response = $this->failed($request, $e, $start);
        }
        --$metrics->active;
        ($this->series[$request->routeTemplate ?? ''][$request->method()][$response->status] ?? $this->resolve($request, $response->status))
            ->observe((hrtime(true) - $start) / 1e9);

        return $response;
    }

    /**
     * The handler threw $e: the error handler's answer, or (without one, or when it throws too)
     * a 500 counted and the exception passed on.
     */
    private function failed(Request $request, \Throwable $e, int|float $start): Response
    {
        if ($this->errors !== null) {
            try {
                return $this->errors->recover($request, $e);
            } catch (\Throwable $failed) {
                $e = $failed; // counted and passed on as the handler's would be
            }
        }
        --$this->metrics->active;
        $this->metrics->series($request->routeTemplate ?? '', $request->method(), 500)->observe((hrtime(true) - $start) / 1e9);

        throw $e;
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
