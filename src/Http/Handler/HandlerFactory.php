<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Http\Psr\PsrRequestHandler;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Routing\RoutePattern;
use Nexus\Http\Routing\Router;
use Psr\Container\ContainerInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * Turns a route's handler into a {@see RequestHandler} at boot: reflects it once and resolves each
 * parameter into a closure reading the request, a container or the actor system.
 *
 * Parameters, first rule that applies:
 * - #[Query], #[Body], #[Actor] as documented on those attributes;
 * - typed Request: the request;
 * - named like a route parameter: its value cast to int/float/bool/string (not castable -> 404);
 * - class or interface type: the container's service of that type (fetched per request);
 * - otherwise its default value, or null if nullable; anything else fails at boot.
 *
 * Controller classes ([Class::class, 'method'] and invokable class names) are built once, by the
 * container when it has them, else with `new`.
 */
final class HandlerFactory
{
    /** @var array<class-string, object> */
    private array $instances = [];

    public function __construct(
        private readonly ?ContainerInterface $container = null,
        private readonly ?ActorSystem $system = null,
    ) {}

    /** @throws HandlerDefinitionException when the handler or one of its parameters cannot be used */
    public function create(mixed $handler, RoutePattern $pattern, string $route): RequestHandler
    {
        if (\is_string($handler) && class_exists($handler)) {
            $handler = $this->instance($handler, "Route {$route}");
        }
        if ($handler instanceof RequestHandler) {
            return $handler;
        }
        if ($handler instanceof RequestHandlerInterface) {
            return new PsrRequestHandler($handler);
        }
        [$target, $arguments] = $this->resolve($handler, $pattern, $route);

        return new CallableHandler($target, $arguments, $route);
    }

    /**
     * The handler as a closure of the request that resolves its arguments (the same rules as
     * create()) and returns what the handler returns, unconverted: for a handler that does not
     * answer with a Response, such as a WebSocket route's factory.
     *
     * @return \Closure(Request): mixed
     *
     * @throws HandlerDefinitionException when the handler or one of its parameters cannot be used
     */
    public function invoker(mixed $handler, RoutePattern $pattern, string $route): \Closure
    {
        if (\is_string($handler) && class_exists($handler)) {
            $handler = $this->instance($handler, "Route {$route}");
        }
        [$target, $arguments] = $this->resolve($handler, $pattern, $route);

        return static function (Request $request) use ($target, $arguments): mixed {
            $args = [];
            foreach ($arguments as $argument) {
                $args[] = $argument($request);
            }

            return $target(...$args);
        };
    }

    /**
     * @return array{\Closure, list<\Closure(Request): mixed>} the callable and one resolver per parameter
     */
    private function resolve(mixed $handler, RoutePattern $pattern, string $route): array
    {
        [$target, $function, $description] = $this->reflect($handler, $route);
        $where = "Route {$route}, handler {$description}";
        $arguments = [];
        foreach ($function->getParameters() as $parameter) {
            $arguments[] = $this->argument($parameter, $pattern, $where);
        }

        return [$target, $arguments];
    }

    /** @return array{\Closure, \ReflectionFunctionAbstract, string} */
    private function reflect(mixed $handler, string $route): array
    {
        if ($handler instanceof \Closure) {
            $function = new \ReflectionFunction($handler);

            return [$handler, $function, \sprintf('closure at %s:%d', basename((string) $function->getFileName()), (int) $function->getStartLine())];
        }
        if (\is_object($handler) && method_exists($handler, '__invoke')) {
            $handler = [$handler, '__invoke'];
        }
        if (\is_array($handler) && \count($handler) === 2 && isset($handler[0], $handler[1]) && \is_string($handler[1]) && (\is_object($handler[0]) || \is_string($handler[0]))) {
            [$object, $name] = $handler;
            $class = \is_object($object) ? $object::class : $object;
            $description = "{$class}::{$name}()";
            if (!class_exists($class) || !method_exists($class, $name)) {
                throw new HandlerDefinitionException(\sprintf('Route %s: handler %s does not exist; check the class and method names.', $route, $description));
            }
            $method = new \ReflectionMethod($class, $name);
            if (!$method->isPublic()) {
                throw new HandlerDefinitionException(\sprintf('Route %s: handler %s is not public; make it public.', $route, $description));
            }
            if ($method->isStatic()) {
                return [$method->getClosure(null), $method, $description];
            }
            $instance = \is_object($object) ? $object : $this->instance($class, "Route {$route}, handler {$description}");

            return [$method->getClosure($instance), $method, $description];
        }

        throw new HandlerDefinitionException(\sprintf(
            'Route %s: the handler (%s) is not usable; give a closure, an invokable object or class name, [Class::class, \'method\'], [$object, \'method\'], a RequestHandler or a PSR-15 RequestHandlerInterface.',
            $route,
            get_debug_type($handler),
        ));
    }

    /**
     * The one instance of $class for the application: from the container when it has it, else
     * made with `new` (which needs a constructor without required parameters).
     *
     * @param class-string $class
     *
     * @throws HandlerDefinitionException when neither can make it
     */
    public function instance(string $class, string $where): object
    {
        if (isset($this->instances[$class])) {
            return $this->instances[$class];
        }
        if ($this->container?->has($class) === true) {
            $instance = $this->container->get($class);
            if (!\is_object($instance)) {
                throw new HandlerDefinitionException(\sprintf('%s: the container returned %s for %s; it must return an object.', $where, get_debug_type($instance), $class));
            }

            return $this->instances[$class] = $instance;
        }
        $reflection = new \ReflectionClass($class);
        if (!$reflection->isInstantiable() || ($reflection->getConstructor()?->getNumberOfRequiredParameters() ?? 0) > 0) {
            throw new HandlerDefinitionException(\sprintf('%s: cannot create %s with `new` (abstract, or its constructor needs arguments); register it in the PSR-11 container given to the Application.', $where, $class));
        }

        return $this->instances[$class] = $reflection->newInstance();
    }

    /** @return \Closure(Request): mixed */
    private function argument(\ReflectionParameter $parameter, RoutePattern $pattern, string $where): \Closure
    {
        $name = $parameter->getName();
        $where .= ", parameter \${$name}";
        if ($parameter->isVariadic()) {
            throw new HandlerDefinitionException("{$where}: variadic parameters cannot be resolved; list the parameters one by one.");
        }
        $type = $parameter->getType();
        $class = $type instanceof \ReflectionNamedType && !$type->isBuiltin() ? $type->getName() : null;

        foreach ($parameter->getAttributes() as $attribute) {
            $instance = match ($attribute->getName()) {
                Query::class, Body::class, Actor::class => $attribute->newInstance(),
                default => null,
            };
            if ($instance instanceof Query) {
                return $this->query($instance->name ?? $name, $parameter, $where);
            }
            if ($instance instanceof Body) {
                return $this->body($parameter, $class, $where);
            }
            if ($instance instanceof Actor) {
                return $this->actor($instance->name, $class, $type, $where);
            }
        }
        if ($class === Request::class) {
            return static fn(Request $request): Request => $request;
        }
        if (\in_array($name, $pattern->names, true)) {
            return $this->path($name, $parameter, $where);
        }
        if ($class !== null) {
            if ($class === ActorRef::class) {
                throw new HandlerDefinitionException("{$where}: an ActorRef parameter needs #[Actor('name')] to say which actor.");
            }
            $container = $this->container;
            if ($container?->has($class) === true) {
                return static fn(): mixed => $container->get($class);
            }
            if (!$parameter->isDefaultValueAvailable() && !$parameter->allowsNull()) {
                throw new HandlerDefinitionException(\sprintf(
                    '%s: no service of type %s %s; register it, or make the parameter optional.',
                    $where,
                    $class,
                    $container === null ? 'because no PSR-11 container was given to the Application' : 'in the container',
                ));
            }
        }
        if ($parameter->isDefaultValueAvailable()) {
            $default = $parameter->getDefaultValue();

            return static fn(): mixed => $default;
        }
        if ($type !== null && $parameter->allowsNull()) {
            return static fn(): mixed => null;
        }

        throw new HandlerDefinitionException(\sprintf(
            '%s: not a route parameter of "%s" (%s), not typed Request or a service, and without a default; add #[Query], #[Body] or #[Actor], or rename it.',
            $where,
            $pattern->pattern,
            $pattern->names === [] ? 'it has none' : 'it has ' . implode(', ', $pattern->names),
        ));
    }

    /** @return \Closure(Request): mixed */
    private function path(string $name, \ReflectionParameter $parameter, string $where): \Closure
    {
        $type = self::scalarType($parameter, $where, false);
        if ($type === 'string' || $type === 'mixed') {
            // routeParam() written out: one call fewer for every request of the route.
            return static function (Request $request) use ($name): string {
                $params = $request->attributes[Router::PARAMS] ?? null;
                $value = \is_array($params) ? ($params[$name] ?? '') : '';

                return \is_string($value) ? $value : '';
            };
        }

        return static function (Request $request) use ($name, $type): int|float|bool|string {
            return ScalarCast::cast($type, self::routeParam($request, $name))
                ?? throw HttpException::notFound(\sprintf('Path parameter "%s" must be %s.', $name, $type === 'int' ? 'an integer' : "a {$type}"));
        };
    }

    private static function routeParam(Request $request, string $name): string
    {
        $params = $request->attributes[Router::PARAMS] ?? null;
        $value = \is_array($params) ? ($params[$name] ?? '') : '';

        return \is_string($value) ? $value : '';
    }

    /** @return \Closure(Request): mixed */
    private function query(string $key, \ReflectionParameter $parameter, string $where): \Closure
    {
        $type = self::scalarType($parameter, $where, true);
        $hasDefault = $parameter->isDefaultValueAvailable();
        $default = $hasDefault ? $parameter->getDefaultValue() : null;
        $nullable = $parameter->allowsNull();

        return static function (Request $request) use ($key, $type, $hasDefault, $default, $nullable): mixed {
            $value = $request->queryParams()[$key] ?? null;
            if ($value === null || ($value === '' && $type !== 'string' && $type !== 'mixed')) {
                if ($hasDefault || $nullable) {
                    return $default;
                }

                throw HttpException::badRequest(\sprintf('Query parameter "%s" is required.', $key));
            }
            if ($type === 'array') {
                return \is_array($value) ? $value : [$value];
            }
            if ($type === 'mixed') {
                return $value;
            }
            if (!\is_string($value)) {
                throw HttpException::badRequest(\sprintf('Query parameter "%s" must be a single value, not a list.', $key));
            }

            return ScalarCast::cast($type, $value)
                ?? throw HttpException::badRequest(\sprintf('Query parameter "%s" must be %s, got "%s".', $key, $type, $value));
        };
    }

    /**
     * @param string|null $class the parameter's class type, if any
     *
     * @return \Closure(Request): mixed
     */
    private function body(\ReflectionParameter $parameter, ?string $class, string $where): \Closure
    {
        $optional = $parameter->isDefaultValueAvailable() || $parameter->allowsNull();
        $default = $parameter->isDefaultValueAvailable() ? $parameter->getDefaultValue() : null;
        if ($class !== null) {
            if (!class_exists($class)) {
                throw new HandlerDefinitionException("{$where}: #[Body] type {$class} is not a class; use a concrete DTO class.");
            }
            $mapper = DtoMapper::forClass($class, $where);
            $decode = static fn(string $body): object => $mapper->map(DtoMapper::decode($body));
        } else {
            $type = self::scalarType($parameter, $where, true);
            $decode = match ($type) {
                'array' => static fn(string $body): array => DtoMapper::decode($body),
                'string', 'mixed' => static fn(string $body): string => $body,
                default => throw new HandlerDefinitionException("{$where}: #[Body] needs the type array (decoded JSON), string (raw) or a DTO class, not {$type}."),
            };
        }

        return static function (Request $request) use ($decode, $optional, $default): mixed {
            $body = $request->body();
            if ($body === '') {
                if ($optional) {
                    return $default;
                }

                throw HttpException::badRequest('The request body is empty; send a JSON document.');
            }

            return $decode($body);
        };
    }

    /** @return \Closure(Request): ActorRef */
    private function actor(string $name, ?string $class, ?\ReflectionType $type, string $where): \Closure
    {
        if ($type !== null && $class !== ActorRef::class) {
            throw new HandlerDefinitionException("{$where}: #[Actor] parameters must be typed ActorRef.");
        }
        $system = $this->system ?? throw new HandlerDefinitionException("{$where}: #[Actor('{$name}')] needs an ActorSystem; pass one to the Application.");
        $path = str_starts_with($name, '/') ? $name : '/user/' . $name;

        return static fn(): ActorRef => $system->lookup($path)
            ?? throw new ActorNotFoundException(\sprintf('No actor is running at %s (asked for by #[Actor(\'%s\')]); spawn it before serving requests.', $path, $name));
    }

    /** @return 'int'|'float'|'bool'|'string'|'mixed'|'array' */
    private static function scalarType(\ReflectionParameter $parameter, string $where, bool $allowArray): string
    {
        $type = $parameter->getType();
        if ($type === null) {
            return 'mixed';
        }
        $name = $type instanceof \ReflectionNamedType ? $type->getName() : (string) $type;

        return match ($name) {
            'int', 'float', 'bool', 'string', 'mixed' => $name,
            'array' => $allowArray ? 'array' : throw new HandlerDefinitionException("{$where}: a path parameter cannot be an array; use a {name:.+} rest parameter and split it."),
            default => throw new HandlerDefinitionException("{$where}: type {$name} is not supported here; use int, float, bool or string" . ($allowArray ? ' or array.' : '.')),
        };
    }
}
