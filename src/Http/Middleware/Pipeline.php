<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\RequestHandler;

/** Composes middleware around a handler once, at boot, into a chain of {@see Next} handlers. */
final class Pipeline
{
    /** @param list<Middleware> $middleware outermost first */
    public static function wrap(array $middleware, RequestHandler $handler): RequestHandler
    {
        for ($i = \count($middleware) - 1; $i >= 0; --$i) {
            $handler = new Next($middleware[$i], $handler);
        }

        return $handler;
    }
}
