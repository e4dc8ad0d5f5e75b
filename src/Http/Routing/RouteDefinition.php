<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

use Nexus\Http\Middleware;
use Nexus\Http\Psr\PsrMiddleware;
use Psr\Http\Server\MiddlewareInterface;

/** One declared route, as returned by the builder so that a name and middleware can be added. */
final class RouteDefinition
{
    private ?string $name = null;
    /** @var list<Middleware> */
    private array $middleware = [];

    /** @param non-empty-list<string> $methods upper-case */
    public function __construct(
        public readonly array $methods,
        public readonly RoutePattern $pattern,
        public readonly mixed $handler,
        public readonly RouteGroup $group,
    ) {}

    public function name(string $name): self
    {
        if ($name === '') {
            throw new RouteDefinitionException(\sprintf('Route "%s": a route name must not be empty.', $this->pattern->pattern));
        }
        $this->name = $name;

        return $this;
    }

    public function middleware(Middleware|MiddlewareInterface ...$middleware): self
    {
        foreach ($middleware as $item) {
            $this->middleware[] = PsrMiddleware::native($item);
        }

        return $this;
    }

    public function getName(): ?string
    {
        return $this->name;
    }

    /** @return list<Middleware> group middleware (outermost first), then the route's own */
    public function pipeline(): array
    {
        return [...$this->group->middlewareChain(), ...$this->middleware];
    }

    /** For messages: "GET|HEAD /users/{id}" plus the name when there is one. */
    public function label(): string
    {
        return implode('|', $this->methods) . ' ' . $this->pattern->pattern . ($this->name === null ? '' : " (\"{$this->name}\")");
    }
}
