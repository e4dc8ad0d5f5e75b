<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Psr;

use Nexus\Http\Middleware;
use Nexus\Http\Psr\PsrConverter;
use Nexus\Http\Psr\PsrMiddleware;
use Nexus\Http\Psr\PsrRequestHandler;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Tests\Unit\Http\Middleware\Handlers;
use Nexus\Tests\Unit\Http\Routing\Requests;
use Nyholm\Psr7\Response as PsrResponse;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

final class PsrBridgeTest extends TestCase
{
    /** A PSR-15 middleware: denies requests without X-Api-Key, tags the request and the response. */
    private static function apiKey(): MiddlewareInterface
    {
        return new class implements MiddlewareInterface {
            public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
            {
                if (!$request->hasHeader('X-Api-Key')) {
                    return new PsrResponse(401, ['WWW-Authenticate' => 'ApiKey'], 'key required');
                }
                $response = $handler->handle($request->withAttribute('client', $request->getHeaderLine('X-Api-Key')));

                return $response->withHeader('X-Checked', 'yes');
            }
        };
    }

    public function testAPsr15MiddlewareCanShortCircuit(): void
    {
        $response = (new PsrMiddleware(self::apiKey()))->process(Requests::make('GET', '/'), Handlers::throwing(new \LogicException('must not run')));

        self::assertSame([401, 'key required', 'ApiKey'], [$response->status, $response->body, $response->header('WWW-Authenticate')]);
    }

    public function testAPsr15MiddlewareWrapsTheNativePipeline(): void
    {
        $seen = null;
        $handler = Handlers::of(static function (Request $r) use (&$seen): Response {
            $seen = $r;

            return Response::json(['client' => $r->attributes['client'] ?? null, 'id' => $r->attributes['id'] ?? null, 'q' => $r->queryParams()], 201, ['X-Native' => 'n']);
        });
        $request = Requests::make('POST', '/orders/7?x=1', ['X-Api-Key' => 'k1'], '{"a":1}');
        $request->attributes['id'] = 'r1';

        $response = (new PsrMiddleware(self::apiKey()))->process($request, $handler);

        self::assertSame(201, $response->status);
        self::assertSame('{"client":"k1","id":"r1","q":{"x":"1"}}', $response->body);
        self::assertSame('yes', $response->header('X-Checked'));
        self::assertSame('n', $response->header('X-Native'));
        self::assertInstanceOf(Request::class, $seen);
        self::assertSame(['POST', '/orders/7', 'x=1', '/orders/7?x=1', '{"a":1}', 'k1'], [$seen->method(), $seen->path(), $seen->query(), $seen->target(), $seen->body(), $seen->header('x-api-key')]);
    }

    public function testAnUntouchedRequestAndResponsePassThroughAsTheSameObjects(): void
    {
        $passThrough = new class implements MiddlewareInterface {
            public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
            {
                return $handler->handle($request);
            }
        };
        $request = Requests::make('GET', '/');
        $native = Response::text('same');
        $seen = null;
        $handler = Handlers::of(static function (Request $r) use (&$seen, $native): Response {
            $seen = $r;

            return $native;
        });

        self::assertSame($native, (new PsrMiddleware($passThrough))->process($request, $handler));
        self::assertSame($request, $seen);
    }

    public function testNativeKeepsNativeMiddlewareAndWrapsPsr(): void
    {
        $native = new Middleware\RequestId();

        self::assertSame($native, PsrMiddleware::native($native));
        self::assertInstanceOf(PsrMiddleware::class, PsrMiddleware::native(self::apiKey()));
    }

    public function testAPsr15RequestHandlerAsARouteHandler(): void
    {
        $psr = new class implements RequestHandlerInterface {
            public function handle(ServerRequestInterface $request): ResponseInterface
            {
                return new PsrResponse(202, ['X-Multi' => ['a', 'b']], $request->getMethod() . ' ' . (string) $request->getUri() . ' ' . json_encode($request->getQueryParams()));
            }
        };

        $response = (new PsrRequestHandler($psr))->handle(Requests::make('PUT', '/p?q=z'));

        self::assertSame([202, 'PUT http://example.test/p?q=z {"q":"z"}', 'a, b'], [$response->status, $response->body, $response->header('X-Multi')]);
    }

    public function testConverterRoundTrip(): void
    {
        $request = Requests::make('PATCH', '/a%20b?c=d', ['Accept' => 'text/plain'], 'body');
        $request->attributes['k'] = 'v';

        $back = PsrConverter::fromPsrRequest(PsrConverter::toPsrRequest($request));

        self::assertSame(['PATCH', '/a%20b', 'c=d', 'body', 'text/plain', '1.1', ['k' => 'v']], [$back->method(), $back->path(), $back->query(), $back->body(), $back->header('Accept'), $back->protocolVersion(), $back->attributes]);
        $response = PsrConverter::fromPsrResponse(PsrConverter::toPsrResponse(Response::json(['a' => 1], 418, ['X-A' => ['1', '2']])));
        self::assertSame([418, '{"a":1}', 'application/json', '1, 2'], [$response->status, $response->body, $response->header('content-type'), $response->header('x-a')]);
    }

    public function testABadHostHeaderStillKeepsPathAndQuery(): void
    {
        $request = new Request('GET', '/p?q=1', '/p', 'q=1', '1.1', ['host' => ['bad host:x:y']]);

        $psr = PsrConverter::toPsrRequest($request);

        self::assertSame('/p', $psr->getUri()->getPath());
        self::assertSame('q=1', $psr->getUri()->getQuery());
    }
}
