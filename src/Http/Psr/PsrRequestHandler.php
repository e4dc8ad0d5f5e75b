<?php

declare(strict_types=1);

namespace Nexus\Http\Psr;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Psr\Http\Server\RequestHandlerInterface;

/** Uses a PSR-15 request handler as a Nexus route handler. */
final readonly class PsrRequestHandler implements RequestHandler
{
    public function __construct(private RequestHandlerInterface $handler) {}

    public function handle(Request $request): Response
    {
        return PsrConverter::fromPsrResponse($this->handler->handle(PsrConverter::toPsrRequest($request)));
    }
}
