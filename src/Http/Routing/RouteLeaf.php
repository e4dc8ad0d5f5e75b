<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

use Nexus\Http\RequestHandler;

/** What a matched route leads to: its compiled pipeline, the names of its parameters and its template. */
final readonly class RouteLeaf
{
    /** @param list<string> $names */
    public function __construct(
        public RequestHandler $handler,
        public array $names,
        public string $template = '',
    ) {}
}
