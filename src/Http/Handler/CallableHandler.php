<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * A route's handler with its arguments resolved at boot into one closure per parameter, so a
 * request costs those calls, the handler call and the conversion of its return value.
 */
final readonly class CallableHandler implements RequestHandler
{
    /** @param list<\Closure(Request): mixed> $arguments */
    public function __construct(
        private \Closure $target,
        private array $arguments,
        private string $route,
    ) {}

    public function handle(Request $request): Response
    {
        $args = [];
        foreach ($this->arguments as $argument) {
            $args[] = $argument($request);
        }
        $result = ($this->target)(...$args);

        return $result instanceof Response ? $result : self::convert($result, $this->route);
    }

    /**
     * string -> text/plain 200, array or JsonSerializable -> application/json 200, null -> 204.
     *
     * @throws InvalidReturnValueException for anything else
     */
    public static function convert(mixed $result, string $route): Response
    {
        if (\is_string($result)) {
            return Response::text($result);
        }
        if ($result === null) {
            return Response::empty(204);
        }
        if (\is_array($result) || $result instanceof \JsonSerializable) {
            return Response::json($result);
        }

        throw new InvalidReturnValueException(\sprintf('The handler of route %s returned %s; return a Response, string, array, JsonSerializable or null.', $route, get_debug_type($result)));
    }
}
