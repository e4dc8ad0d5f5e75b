<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * Turns a request into a response. The server calls it inside a fiber, so it may await futures
 * (an actor's reply, a socket, a database) without blocking other requests.
 */
interface RequestHandler
{
    public function handle(Request $request): Response;
}
