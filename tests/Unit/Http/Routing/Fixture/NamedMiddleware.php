<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing\Fixture;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/** Appends its name to $request->attributes['trail'] and sets X-<name> on the response. */
final readonly class NamedMiddleware implements Middleware
{
    public function __construct(public string $name) {}

    public function process(Request $request, RequestHandler $next): Response
    {
        $trail = $request->attributes['trail'] ?? [];
        \assert(\is_array($trail));
        $trail[] = $this->name;
        $request->attributes['trail'] = $trail;

        return $next->handle($request)->withHeader('X-' . $this->name, '1');
    }
}
