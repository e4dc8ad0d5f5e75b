<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * A route's handler with its arguments resolved at boot into one closure per parameter, so a
 * request costs those calls, the handler call and the conversion of its return value.
 *
 * The conversion of the last value converted is remembered, one per route: a handler that
 * returns the same string, null, or the same flat array of strings, ints, bools and nulls as the
 * time before gets the same (immutable) Response again, without encoding it and building it
 * anew. Equal values of those kinds always convert to equal bytes; floats (0.0 and -0.0 are
 * equal and encode differently), objects (their state may change) and nested arrays are never
 * remembered, nor bodies over REUSE_MAX_BODY bytes.
 */
final class CallableHandler implements RequestHandler
{
    /** The largest converted body that is remembered, in bytes. */
    public const REUSE_MAX_BODY = 1024;

    /** The largest array that is remembered, in elements. */
    private const REUSE_MAX_FIELDS = 16;

    /** @var string|array<array-key, string|int|bool|null>|null the value $lastResponse was converted from */
    private string|array|null $lastResult = null;

    private ?Response $lastResponse = null;

    /** The only argument's resolver, for a handler of one parameter (called without a loop). */
    private readonly ?\Closure $argument;

    /** @param list<\Closure(Request): mixed> $arguments */
    public function __construct(
        private readonly \Closure $target,
        private readonly array $arguments,
        private readonly string $route,
    ) {
        $this->argument = \count($arguments) === 1 ? $arguments[0] : null;
    }

    public function handle(Request $request): Response
    {
        // Handlers of no parameter or one are called without a loop and without unpacking:
        // under the tracing JIT a loop, even an empty one, ends the trace that reached it.
        if ($this->arguments === []) {
            $result = ($this->target)();
        } elseif ($this->argument !== null) {
            $result = ($this->target)(($this->argument)($request));
        } else {
            $args = [];
            foreach ($this->arguments as $argument) {
                $args[] = $argument($request);
            }
            $result = ($this->target)(...$args);
        }
        if ($result instanceof Response) {
            return $result;
        }
        if ($result === $this->lastResult && $this->lastResponse !== null) {
            return $this->lastResponse;
        }
        $response = self::convert($result, $this->route);
        if (\strlen($response->body) <= self::REUSE_MAX_BODY && ($result === null || \is_string($result) || (\is_array($result) && self::flat($result)))) {
            $this->lastResult = $result;
            $this->lastResponse = $response;
        }

        return $response;
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

    /**
     * Whether equal arrays of this shape always encode to the same JSON.
     *
     * @param array<mixed> $result
     *
     * @phpstan-assert-if-true array<array-key, string|int|bool|null> $result
     */
    private static function flat(array $result): bool
    {
        if (\count($result) > self::REUSE_MAX_FIELDS) {
            return false;
        }
        foreach ($result as $value) {
            if ($value !== null && !\is_string($value) && !\is_int($value) && !\is_bool($value)) {
                return false;
            }
        }

        return true;
    }
}
