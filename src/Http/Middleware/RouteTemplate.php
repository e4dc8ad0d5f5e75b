<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * Puts the matched route's template ("/users/{id}") into $request->attributes[ATTRIBUTE] for the
 * middleware around the router (tracing's http.route). The Application puts it in front of every
 * route only when a TraceRequests middleware is installed, so that requests pay nothing for it
 * otherwise.
 */
final class RouteTemplate implements Middleware
{
    public const ATTRIBUTE = 'route_template';

    public function __construct(private readonly string $template) {}

    public function process(Request $request, RequestHandler $next): Response
    {
        $request->attributes[self::ATTRIBUTE] = $this->template;

        return $next->handle($request);
    }
}
