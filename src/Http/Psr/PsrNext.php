<?php

declare(strict_types=1);

namespace Nexus\Http\Psr;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * The rest of a Nexus pipeline as a PSR-15 handler. An unchanged request and an unchanged
 * response are passed through without converting them again.
 */
final class PsrNext implements RequestHandlerInterface
{
    private ?ResponseInterface $lastPsr = null;
    private ?Response $lastNative = null;

    public function __construct(
        private readonly RequestHandler $next,
        private readonly Request $request,
        private readonly ServerRequestInterface $psr,
    ) {}

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $native = $request === $this->psr ? $this->request : PsrConverter::fromPsrRequest($request);
        $this->lastNative = $this->next->handle($native);

        return $this->lastPsr = PsrConverter::toPsrResponse($this->lastNative);
    }

    public function fromPsr(ResponseInterface $response): Response
    {
        if ($response === $this->lastPsr && $this->lastNative !== null) {
            return $this->lastNative;
        }

        return PsrConverter::fromPsrResponse($response);
    }
}
