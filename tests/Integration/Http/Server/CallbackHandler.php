<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

final class CallbackHandler implements RequestHandler
{
    /**
     * @param \Closure(Request): Response $callback
     */
    public function __construct(private readonly \Closure $callback) {}

    public function handle(Request $request): Response
    {
        return ($this->callback)($request);
    }
}
