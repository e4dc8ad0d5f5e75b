<?php

declare(strict_types=1);

namespace Nexus\Http\Psr;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Psr\Http\Server\MiddlewareInterface;

/**
 * Runs a PSR-15 middleware in a Nexus pipeline. Each call converts the request to PSR-7 and the
 * response back, so native middleware is cheaper on hot paths.
 */
final readonly class PsrMiddleware implements Middleware
{
    public function __construct(private MiddlewareInterface $middleware) {}

    /** Native middleware as is, PSR-15 middleware wrapped. */
    public static function native(Middleware|MiddlewareInterface $middleware): Middleware
    {
        return $middleware instanceof Middleware ? $middleware : new self($middleware);
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $psr = PsrConverter::toPsrRequest($request);
        $psrNext = new PsrNext($next, $request, $psr);

        return $psrNext->fromPsr($this->middleware->process($psr, $psrNext));
    }
}
