<?php

declare(strict_types=1);

namespace Nexus\Http\Middleware;

use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * Cross-origin resource sharing. A preflight (OPTIONS with Origin and Access-Control-Request-Method)
 * from an allowed origin is answered here with 204; other requests from an allowed origin get the
 * CORS headers added. Requests without Origin, or from an origin not allowed, pass through
 * unchanged, so the browser blocks them.
 */
final readonly class Cors implements Middleware
{
    private bool $anyOrigin;
    /** @var array<string, true> */
    private array $origins;
    /** @var array<string, string> */
    private array $preflightHeaders;

    /**
     * @param list<string> $origins exact origins like "https://app.example", or ["*"]
     * @param list<string> $methods
     * @param list<string> $headers request headers the client may send
     * @param list<string> $exposeHeaders response headers the client may read
     * @param bool $credentials allow cookies; then the origin is echoed back even for "*"
     */
    public function __construct(
        array $origins = ['*'],
        array $methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
        array $headers = ['Content-Type', 'Authorization'],
        private array $exposeHeaders = [],
        private bool $credentials = false,
        ?int $maxAge = 600,
    ) {
        if ($origins === []) {
            throw new \InvalidArgumentException('Cors needs at least one allowed origin, or ["*"] for any.');
        }
        $this->anyOrigin = \in_array('*', $origins, true);
        $this->origins = array_fill_keys($origins, true);
        $preflight = [
            'Access-Control-Allow-Methods' => implode(', ', $methods),
            'Access-Control-Allow-Headers' => implode(', ', $headers),
        ];
        if ($maxAge !== null) {
            $preflight['Access-Control-Max-Age'] = (string) $maxAge;
        }
        $this->preflightHeaders = $preflight;
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $origin = $request->header('Origin');
        if ($origin === null || (!$this->anyOrigin && !isset($this->origins[$origin]))) {
            return $next->handle($request);
        }
        $headers = [
            'Access-Control-Allow-Origin' => $this->anyOrigin && !$this->credentials ? '*' : $origin,
            'Vary' => 'Origin',
        ];
        if ($this->credentials) {
            $headers['Access-Control-Allow-Credentials'] = 'true';
        }
        if ($request->method() === 'OPTIONS' && $request->hasHeader('Access-Control-Request-Method')) {
            return Response::empty(204, $headers + $this->preflightHeaders);
        }
        if ($this->exposeHeaders !== []) {
            $headers['Access-Control-Expose-Headers'] = implode(', ', $this->exposeHeaders);
        }
        $response = $next->handle($request);
        foreach ($headers as $name => $value) {
            $response = $response->withHeader($name, $value);
        }

        return $response;
    }
}
