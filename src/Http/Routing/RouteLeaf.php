<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

use Nexus\Http\RequestHandler;

/** What a matched route leads to: its compiled pipeline and the names of its parameters. */
final readonly class RouteLeaf
{
    /** @param list<string> $names */
    public function __construct(
        public RequestHandler $handler,
        public array $names,
    ) {}
}
