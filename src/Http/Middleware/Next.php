<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/** One link of a compiled pipeline: a middleware and the rest of the chain. */
final readonly class Next implements RequestHandler
{
    public function __construct(
        private Middleware $middleware,
        private RequestHandler $next,
    ) {}

    public function handle(Request $request): Response
    {
        return $this->middleware->process($request, $this->next);
    }
}
