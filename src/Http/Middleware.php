<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * Native middleware: does something around the rest of the pipeline ($next), or answers itself.
 * For PSR-15 middleware, see the PSR bridge.
 */
interface Middleware
{
    public function process(Request $request, RequestHandler $next): Response;
}
