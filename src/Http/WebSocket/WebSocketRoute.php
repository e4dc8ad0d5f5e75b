<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\Handler\HandlerDefinitionException;
use Nexus\Http\Handler\HandlerFactory;
use Nexus\Http\RequestHandler;
use Nexus\Http\Routing\RoutePattern;
use Nexus\Http\WebSocket\Internal\Endpoint;
use Psr\Log\LoggerInterface;

/**
 * A WebSocket route as declared (Application::websocket(), RouteGroup::websocket()): its handler
 * and options, compiled with the application into the handshake handler at the end of the
 * route's pipeline.
 *
 * The handler is either a WebSocketHandler (an object, or a class name built once by the
 * container or with `new`) that serves every connection, or a factory: a callable whose
 * parameters are resolved like an HTTP handler's (route parameters, #[Query], #[Actor], Request,
 * services) and which returns the WebSocketHandler of one connection, or a Response to refuse it.
 * The factory runs during the handshake, after the route's middleware, so what it throws
 * (an HttpException: 403, 404) is the answer instead of the 101.
 */
final readonly class WebSocketRoute
{
    public function __construct(
        public mixed $handler,
        public WebSocketOptions $options = new WebSocketOptions(),
    ) {}

    /**
     * @internal called by Application::handler()
     *
     * @throws HandlerDefinitionException when the handler cannot be used
     */
    public function compile(HandlerFactory $factory, RoutePattern $pattern, string $label, LoggerInterface $logger): RequestHandler
    {
        $handler = $this->handler;
        if (\is_string($handler) && class_exists($handler) && is_subclass_of($handler, WebSocketHandler::class)) {
            $handler = $factory->instance($handler, "WebSocket route {$label}");
        }
        $handshake = new Handshake($this->options);
        if ($handler instanceof WebSocketHandler) {
            return new Endpoint($handshake, $handler, null, $this->options, $logger, $label);
        }

        return new Endpoint($handshake, null, $factory->invoker($handler, $pattern, "WebSocket route {$label}"), $this->options, $logger, $label);
    }
}
