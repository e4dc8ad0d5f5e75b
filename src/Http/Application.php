<?php

declare(strict_types=1);

namespace Nexus\Http;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Handler\HandlerFactory;
use Nexus\Http\Middleware\ErrorHandler;
use Nexus\Http\Middleware\Pipeline;
use Nexus\Http\Middleware\RouteTemplate;
use Nexus\Http\Middleware\TraceRequests;
use Nexus\Http\Psr\PsrMiddleware;
use Nexus\Http\Routing\RouteDefinition;
use Nexus\Http\Routing\RouteDefinitionException;
use Nexus\Http\Routing\RouteGroup;
use Nexus\Http\Routing\Router;
use Nexus\Http\Routing\RouteTarget;
use Nexus\Http\Routing\UrlGenerator;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Http\WebSocket\WebSocketRoute;
use Psr\Container\ContainerInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Log\LoggerInterface;
use Psr\Log\NullLogger;

/**
 * The application builder: declare routes and middleware, then call {@see handler()} once to
 * compile everything into the RequestHandler the server calls.
 *
 *     $app = new Application($system);
 *     $app->middleware(new RequestId());
 *     $app->get('/hello/{name}', fn(string $name) => "Hello, {$name}!")->name('hello');
 *     $app->group('/api', function (RouteGroup $api) {
 *         $api->post('/users', fn(#[Body] CreateUser $user) => ['id' => 1]);
 *     }, middleware: [new Cors(['https://app.example'])]);
 *     $handler = $app->handler();
 *
 * Layers, outermost first: an ErrorHandler (debug mode per the constructor), the global
 * middleware, the same ErrorHandler again unless a global ErrorHandler was added (then that one
 * renders errors), the router (400/404/405), group and route middleware, the handler. Without
 * global middleware the ErrorHandler is there once.
 */
final class Application
{
    private readonly RouteGroup $routes;
    private readonly LoggerInterface $logger;
    /** @var list<Middleware> */
    private array $middleware = [];
    private ?RequestHandler $handler = null;
    private ?UrlGenerator $urls = null;
    /** A TraceRequests middleware is installed: routes record their template (RouteTemplate). */
    private bool $routeTemplates = false;

    public function __construct(
        private readonly ?ActorSystem $system = null,
        private readonly ?ContainerInterface $container = null,
        private readonly bool $debug = false,
        ?LoggerInterface $logger = null,
    ) {
        $this->routes = RouteGroup::root();
        $this->logger = $logger ?? $system->logger ?? new NullLogger();
    }

    public function get(string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->get($path, $handler);
    }

    public function post(string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->post($path, $handler);
    }

    public function put(string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->put($path, $handler);
    }

    public function patch(string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->patch($path, $handler);
    }

    public function delete(string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->delete($path, $handler);
    }

    /**
     * A WebSocket route: GET $path answered with the WebSocket handshake, after the global and
     * route middleware. $handler is a WebSocketHandler (object or class name) that serves every
     * connection, or a factory whose parameters are resolved like an HTTP handler's (route
     * parameters, #[Query], #[Actor], Request, services) returning the WebSocketHandler of one
     * connection (docs/websocket.md).
     */
    public function websocket(string $path, mixed $handler, WebSocketOptions $options = new WebSocketOptions()): RouteDefinition
    {
        return $this->routes->websocket($path, $handler, $options);
    }

    public function any(string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->any($path, $handler);
    }

    /** @param list<string> $methods */
    public function map(array $methods, string $path, mixed $handler): RouteDefinition
    {
        return $this->routes->map($methods, $path, $handler);
    }

    /**
     * @param \Closure(RouteGroup): mixed $define
     * @param list<Middleware|MiddlewareInterface> $middleware
     */
    public function group(string $prefix, \Closure $define, array $middleware = []): RouteGroup
    {
        return $this->routes->group($prefix, $define, $middleware);
    }

    /** Global middleware: runs for every request, before routing, so also for 404 and 405. */
    public function middleware(Middleware|MiddlewareInterface ...$middleware): self
    {
        if ($this->handler !== null) {
            throw new RouteDefinitionException('Middleware was added after handler() compiled the application; add it before.');
        }
        foreach ($middleware as $item) {
            $this->middleware[] = PsrMiddleware::native($item);
            $this->routeTemplates = $this->routeTemplates || $item instanceof TraceRequests;
        }

        return $this;
    }

    /** @param class-string $class */
    public function routesFromClass(string $class): self
    {
        $this->routes->fromClass($class);

        return $this;
    }

    /** The root route group, for code that declares routes on a RouteGroup. */
    public function routes(): RouteGroup
    {
        return $this->routes;
    }

    /** @param array<string, scalar|\Stringable> $params */
    public function url(string $name, array $params = []): string
    {
        $urls = $this->urls ?? UrlGenerator::fromRoutes($this->routes->routes->all());

        return $urls->url($name, $params);
    }

    /**
     * Compiles routes, handlers and middleware on the first call; later calls return the same
     * handler. All declaration errors surface here.
     */
    public function handler(): RequestHandler
    {
        if ($this->handler !== null) {
            return $this->handler;
        }
        $definitions = $this->routes->routes->all();
        $urls = UrlGenerator::fromRoutes($definitions);
        $factory = new HandlerFactory($this->container, $this->system);
        $targets = [];
        foreach ($definitions as $definition) {
            $label = $definition->label();
            $handler = $definition->handler instanceof WebSocketRoute
                ? $definition->handler->compile($factory, $definition->pattern, $label, $this->logger)
                : $factory->create($definition->handler, $definition->pattern, $label);
            $pipeline = $definition->pipeline();
            if ($this->routeTemplates) {
                array_unshift($pipeline, new RouteTemplate($definition->pattern->pattern));
            }
            $targets[] = new RouteTarget($definition->methods, $definition->pattern, Pipeline::wrap($pipeline, $handler), $label);
        }
        $router = Router::compile($targets);
        $this->routes->routes->freeze();
        $this->urls = $urls;

        $errors = new ErrorHandler($this->debug, $this->logger);
        if ($this->middleware === []) {
            return $this->handler = $errors->around($router);
        }
        $layers = [$errors, ...$this->middleware];
        foreach ($this->middleware as $middleware) {
            if ($middleware instanceof ErrorHandler) {
                return $this->handler = Pipeline::wrap($layers, $router);
            }
        }
        // Also right around the router, so that global middleware (request id, CORS, access log)
        // sees error responses instead of exceptions.
        return $this->handler = Pipeline::wrap($layers, $errors->around($router));
    }
}
