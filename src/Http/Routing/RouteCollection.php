<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/** The routes declared through a root {@see RouteGroup} and all its subgroups, in order. */
final class RouteCollection
{
    /** @var list<RouteDefinition> */
    private array $routes = [];
    private bool $frozen = false;

    public function add(RouteDefinition $route): void
    {
        if ($this->frozen) {
            throw new RouteDefinitionException(\sprintf('Route %s was declared after the routes were compiled; declare all routes before calling handler().', $route->label()));
        }
        $this->routes[] = $route;
    }

    /** @return list<RouteDefinition> */
    public function all(): array
    {
        return $this->routes;
    }

    public function freeze(): void
    {
        $this->frozen = true;
    }
}
