<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

use Nexus\Http\RequestHandler;

/** A route ready for the {@see Router}: its methods, pattern and compiled pipeline. */
final readonly class RouteTarget
{
    /** @param non-empty-list<string> $methods */
    public function __construct(
        public array $methods,
        public RoutePattern $pattern,
        public RequestHandler $handler,
        public string $label,
    ) {}
}
