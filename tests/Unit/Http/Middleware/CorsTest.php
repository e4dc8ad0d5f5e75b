<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Middleware;

use Nexus\Http\Middleware\Cors;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\TestCase;

final class CorsTest extends TestCase
{
    private static function cors(): Cors
    {
        return new Cors(['https://app.example'], ['GET', 'POST'], ['Content-Type', 'X-Token'], ['X-Request-Id'], maxAge: 300);
    }

    public function testAnswersAPreflightItselfWith204(): void
    {
        $request = Requests::make('OPTIONS', '/api', ['Origin' => 'https://app.example', 'Access-Control-Request-Method' => 'POST']);

        $response = self::cors()->process($request, Handlers::throwing(new \LogicException('a preflight must not reach the handler')));

        self::assertSame(204, $response->status);
        self::assertSame('https://app.example', $response->header('Access-Control-Allow-Origin'));
        self::assertSame('GET, POST', $response->header('Access-Control-Allow-Methods'));
        self::assertSame('Content-Type, X-Token', $response->header('Access-Control-Allow-Headers'));
        self::assertSame('300', $response->header('Access-Control-Max-Age'));
        self::assertSame('Origin', $response->header('Vary'));
    }

    public function testAddsHeadersToAnAllowedCrossOriginRequest(): void
    {
        $response = self::cors()->process(Requests::make('GET', '/api', ['Origin' => 'https://app.example']), Handlers::ok());

        self::assertSame('ok', $response->body);
        self::assertSame('https://app.example', $response->header('Access-Control-Allow-Origin'));
        self::assertSame('X-Request-Id', $response->header('Access-Control-Expose-Headers'));
        self::assertNull($response->header('Access-Control-Allow-Methods'));
        self::assertNull($response->header('Access-Control-Allow-Credentials'));
    }

    public function testLeavesOtherOriginsAndSameOriginRequestsAlone(): void
    {
        $other = self::cors()->process(Requests::make('OPTIONS', '/api', ['Origin' => 'https://evil.example', 'Access-Control-Request-Method' => 'POST']), Handlers::ok());
        $none = self::cors()->process(Requests::make('GET', '/api'), Handlers::ok());

        self::assertSame('ok', $other->body, 'a preflight from a foreign origin is not answered');
        self::assertNull($other->header('Access-Control-Allow-Origin'));
        self::assertNull($none->header('Access-Control-Allow-Origin'));
    }

    public function testWildcardAndCredentials(): void
    {
        $request = Requests::make('GET', '/', ['Origin' => 'https://any.example']);

        self::assertSame('*', (new Cors())->process($request, Handlers::ok())->header('Access-Control-Allow-Origin'));
        $withCredentials = (new Cors(credentials: true))->process($request, Handlers::ok());
        self::assertSame('https://any.example', $withCredentials->header('Access-Control-Allow-Origin'), 'credentials forbid "*"');
        self::assertSame('true', $withCredentials->header('Access-Control-Allow-Credentials'));
    }

    public function testAPlainOptionsRequestIsNotAPreflight(): void
    {
        $response = self::cors()->process(Requests::make('OPTIONS', '/', ['Origin' => 'https://app.example']), Handlers::ok());

        self::assertSame('ok', $response->body);
    }

    public function testNeedsAnOrigin(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new Cors([]);
    }
}
