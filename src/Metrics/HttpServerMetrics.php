<?php

declare(strict_types=1);

namespace Nexus\Metrics;

use Nexus\Http\Middleware;
use Nexus\Http\Middleware\ErrorHandled;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * HTTP server metrics with the OpenTelemetry semantic-convention names, around the application's
 * whole handler (wrap(): one call, outside the error handler, what `nexus serve` does) or as a
 * middleware (add it first, so that it sees every answer, errors included):
 *
 * - http.server.request.duration (histogram, seconds, Buckets::SECONDS), labels
 *   http.request.method (the registered methods; anything else `_OTHER`), http.route (the
 *   template of the route that matched, $request->routeTemplate, set by the router; '' when none
 *   matched, a 404: never the raw path, whose values are unbounded) and
 *   http.response.status_code;
 * - http.server.active_requests (gauge, summed over workers): requests being handled now.
 *
 * Per request: two hrtime() calls, an integer up and down for the active requests (read at
 * scrape time), nested array lookups for the cached series (no string built) and one observe().
 * wrap() costs less than the middleware: no layer, and its MeasuredHandler keeps its own cache.
 * A handler that throws is counted as 500 and the exception passes on. The duration runs until
 * the handler returns; a streamed body's transfer is not included.
 */
final class HttpServerMetrics implements Middleware
{
    private const METHODS = ['GET' => true, 'HEAD' => true, 'POST' => true, 'PUT' => true, 'PATCH' => true, 'DELETE' => true, 'OPTIONS' => true, 'CONNECT' => true, 'TRACE' => true];

    public readonly Histogram $duration;
    /**
     * Requests being handled now: a plain integer, read at scrape time.
     *
     * @internal counted by process() and by MeasuredHandler
     */
    public int $active = 0;
    /** @var array<string, array<string, array<int, HistogramSeries>>> by route, method, status */
    private array $series = [];
    private int $cached = 0;

    public function __construct(Registry $registry)
    {
        $this->duration = $registry->histogram(
            'http.server.request.duration',
            'Duration of HTTP server requests, until the handler returned.',
            ['http.request.method', 'http.route', 'http.response.status_code'],
            's',
            Buckets::SECONDS,
        );
        $registry->gaugeCallback('http.server.active_requests', 'HTTP requests being handled now.', fn(): int => $this->active, [], '{request}', aggregation: Aggregation::Sum);
    }

    /**
     * The handler measured, without a middleware layer: for the outermost place, around the
     * application's whole handler (its error handler included, so every answer is seen with
     * its final status). What `nexus serve` uses.
     */
    public function wrap(RequestHandler $handler): RequestHandler
    {
        if ($handler instanceof ErrorHandled) {
            // An application's handler: measured around its router with its error handler called
            // for what the router throws, which answers the same with one call fewer per request.
            return new MeasuredHandler($this, $handler->handler, $handler->errors);
        }

        return new MeasuredHandler($this, $handler);
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $start = hrtime(true);
        ++$this->active;
        try {
            $response = $next->handle($request);
        } catch (\Throwable $e) {
            --$this->active;
            $this->record($request, 500, $start);

            throw $e;
        }
        --$this->active;
        $status = $response->status;
        $route = $request->routeTemplate ?? '';
        $method = $request->method();
        if (!isset(self::METHODS[$method])) {
            $method = '_OTHER';
        }
        ($this->series[$route][$method][$status] ?? $this->resolve($route, $method, $status))->observe((hrtime(true) - $start) / 1e9);

        return $response;
    }

    /**
     * @internal for MeasuredHandler: the series of one answer, from the cache or made
     */
    public function series(string $route, string $method, int $status): HistogramSeries
    {
        if (!isset(self::METHODS[$method])) {
            $method = '_OTHER';
        }

        return $this->series[$route][$method][$status] ?? $this->resolve($route, $method, $status);
    }

    private function record(Request $request, int $status, int|float $start): void
    {
        $route = $request->routeTemplate ?? '';
        $method = $request->method();
        if (!isset(self::METHODS[$method])) {
            $method = '_OTHER';
        }
        $series = $this->series[$route][$method][$status] ?? $this->resolve($route, $method, $status);
        $series->observe((hrtime(true) - $start) / 1e9);
    }

    private function resolve(string $route, string $method, int $status): HistogramSeries
    {
        $series = $this->duration->labels($method, $route, (string) $status);
        // Past the series limit every new combination is the overflow series: keep the cache bounded too.
        if ($this->cached < $this->duration->maxSeries) {
            $this->series[$route][$method][$status] = $series;
            ++$this->cached;
        }

        return $series;
    }
}
