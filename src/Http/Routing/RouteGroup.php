<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

use Nexus\Http\Middleware;
use Nexus\Http\Psr\PsrMiddleware;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Http\WebSocket\WebSocketRoute;
use Psr\Http\Server\MiddlewareInterface;

/**
 * The route builder: a path prefix plus middleware shared by the routes declared through it.
 * The root group has the prefix "".
 */
final class RouteGroup
{
    public const STANDARD_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

    /** @var list<Middleware> */
    private array $middleware = [];

    private function __construct(
        public readonly RouteCollection $routes,
        public readonly string $prefix,
        private readonly ?RouteGroup $parent,
    ) {}

    public static function root(): self
    {
        return new self(new RouteCollection(), '', null);
    }

    public function get(string $path, mixed $handler): RouteDefinition
    {
        return $this->map(['GET'], $path, $handler);
    }

    public function post(string $path, mixed $handler): RouteDefinition
    {
        return $this->map(['POST'], $path, $handler);
    }

    public function put(string $path, mixed $handler): RouteDefinition
    {
        return $this->map(['PUT'], $path, $handler);
    }

    public function patch(string $path, mixed $handler): RouteDefinition
    {
        return $this->map(['PATCH'], $path, $handler);
    }

    public function delete(string $path, mixed $handler): RouteDefinition
    {
        return $this->map(['DELETE'], $path, $handler);
    }

    /**
     * A WebSocket route: GET $path answered with the WebSocket handshake, after this group's and
     * the route's middleware (see WebSocketRoute for what $handler may be).
     */
    public function websocket(string $path, mixed $handler, WebSocketOptions $options = new WebSocketOptions()): RouteDefinition
    {
        return $this->map(['GET'], $path, new WebSocketRoute($handler, $options));
    }

    /** GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS. */
    public function any(string $path, mixed $handler): RouteDefinition
    {
        return $this->map(self::STANDARD_METHODS, $path, $handler);
    }

    /**
     * @param list<string> $methods case-insensitive here; stored upper-case
     * @param mixed $handler a closure, an invokable object or class name, [Class::class, 'method'],
     *                       [$object, 'method'], a RequestHandler or a PSR-15 RequestHandlerInterface
     */
    public function map(array $methods, string $path, mixed $handler): RouteDefinition
    {
        $upper = [];
        foreach ($methods as $method) {
            if ($method === '' || preg_match('/^[A-Za-z]+$/D', $method) !== 1) {
                throw new RouteDefinitionException(\sprintf('Route "%s": "%s" is not an HTTP method name (letters only).', $path, $method));
            }
            $upper[] = strtoupper($method);
        }
        if ($upper === []) {
            throw new RouteDefinitionException(\sprintf('Route "%s" has no HTTP methods; give at least one.', $path));
        }
        $route = new RouteDefinition(array_values(array_unique($upper)), RoutePattern::parse($this->prefix . $path), $handler, $this);
        $this->routes->add($route);

        return $route;
    }

    /**
     * A subgroup: $define receives it to declare routes under "$prefix".
     *
     * @param \Closure(RouteGroup): mixed $define
     * @param list<Middleware|MiddlewareInterface> $middleware
     */
    public function group(string $prefix, \Closure $define, array $middleware = []): self
    {
        if ($prefix === '' || $prefix[0] !== '/' || str_ends_with($prefix, '/')) {
            throw new RouteDefinitionException(\sprintf('Group prefix "%s" must start with "/" and not end with "/", e.g. "/api".', $prefix));
        }
        $group = new self($this->routes, $this->prefix . $prefix, $this);
        $group->middleware(...$middleware);
        $define($group);

        return $group;
    }

    /** Adds middleware that wraps every route of this group, including routes already declared. */
    public function middleware(Middleware|MiddlewareInterface ...$middleware): self
    {
        foreach ($middleware as $item) {
            $this->middleware[] = PsrMiddleware::native($item);
        }

        return $this;
    }

    /**
     * Declares the routes of a class's #[Route]-annotated public methods; a #[Route] on the class
     * prefixes them. The handlers are [$class, 'method'], so the class is built once at boot.
     *
     * @param class-string $class
     */
    public function fromClass(string $class): self
    {
        if (!class_exists($class)) {
            throw new RouteDefinitionException(\sprintf('Cannot load routes from "%s": no such class.', $class));
        }
        $reflection = new \ReflectionClass($class);
        $prefix = '';
        foreach ($reflection->getAttributes(Route::class) as $attribute) {
            $prefix = $attribute->newInstance()->path;
        }
        $target = $prefix === '' ? $this : $this->group($prefix, static fn(): null => null);
        $found = 0;
        foreach ($reflection->getMethods() as $method) {
            $attributes = $method->getAttributes(Route::class);
            if ($attributes === []) {
                continue;
            }
            if (!$method->isPublic()) {
                throw new RouteDefinitionException(\sprintf('%s::%s() has #[Route] but is not public; make it public.', $class, $method->getName()));
            }
            foreach ($attributes as $attribute) {
                $route = $attribute->newInstance();
                $definition = $target->map($route->methods, $route->path, [$class, $method->getName()]);
                if ($route->name !== null) {
                    $definition->name($route->name);
                }
                ++$found;
            }
        }
        if ($found === 0) {
            throw new RouteDefinitionException(\sprintf('Class %s has no public method with #[Route]; annotate at least one.', $class));
        }

        return $this;
    }

    /** @return list<Middleware> the middleware of the enclosing groups, outermost first, then this group's */
    public function middlewareChain(): array
    {
        return $this->parent === null ? $this->middleware : [...$this->parent->middlewareChain(), ...$this->middleware];
    }
}
