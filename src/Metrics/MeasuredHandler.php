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
 */
final class MeasuredHandler implements RequestHandler
{
    public function __construct(
        private readonly HttpServerMetrics $metrics,
        private readonly RequestHandler $handler,
    ) {}

    public function handle(Request $request): Response
    {
        return $this->metrics->process($request, $this->handler);
    }
}
