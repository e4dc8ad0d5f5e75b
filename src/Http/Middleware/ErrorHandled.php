<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * A handler with an ErrorHandler around it (ErrorHandler::around()): the same answers as the
 * middleware in a pipeline, one call fewer per request.
 *
 * @internal
 */
final readonly class ErrorHandled implements RequestHandler
{
    public function __construct(
        /** @internal (HttpServerMetrics::wrap() takes it apart) */
        public ErrorHandler $errors,
        /** @internal */
        public RequestHandler $handler,
    ) {}

    public function handle(Request $request): Response
    {
        try {
            return $this->handler->handle($request);
        } catch (\Throwable $e) {
            return $this->errors->recover($request, $e);
        }
    }
}
