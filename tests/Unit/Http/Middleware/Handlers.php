<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Middleware;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/** Small handlers for the middleware tests. */
final class Handlers
{
    /** @param \Closure(Request): Response $fn */
    public static function of(\Closure $fn): RequestHandler
    {
        return new class ($fn) implements RequestHandler {
            /** @param \Closure(Request): Response $fn */
            public function __construct(private readonly \Closure $fn) {}

            public function handle(Request $request): Response
            {
                return ($this->fn)($request);
            }
        };
    }

    public static function ok(): RequestHandler
    {
        return self::of(static fn(Request $r): Response => Response::text('ok'));
    }

    public static function throwing(\Throwable $e): RequestHandler
    {
        return self::of(static fn(Request $r): Response => throw $e);
    }
}
