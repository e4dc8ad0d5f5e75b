<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Middleware;

use Nexus\Http\Middleware\RequestId;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RequestIdTest extends TestCase
{
    private static function echoId(): \Nexus\Http\RequestHandler
    {
        return Handlers::of(static fn(Request $r): Response => Response::text((string) json_encode($r->attributes[RequestId::ATTRIBUTE] ?? null)));
    }

    public function testGeneratesIdsFromAPerProcessPrefixAndACounter(): void
    {
        $middleware = new RequestId();
        $first = $middleware->process(Requests::make('GET', '/'), self::echoId());
        $second = $middleware->process(Requests::make('GET', '/'), self::echoId());

        $a = (string) $first->header('X-Request-Id');
        $b = (string) $second->header('X-Request-Id');
        self::assertMatchesRegularExpression('/^[0-9a-f]{12}-1$/', $a);
        self::assertSame(substr($a, 0, 12) . '-2', $b);
        self::assertSame('"' . $a . '"', $first->body, 'the id is in the request attributes');
        self::assertNotSame(substr($a, 0, 12), substr((string) (new RequestId())->process(Requests::make('GET', '/'), self::echoId())->header('X-Request-Id'), 0, 12));
    }

    public function testKeepsAnIncomingId(): void
    {
        $response = (new RequestId())->process(Requests::make('GET', '/', ['X-Request-Id' => 'abc-123']), self::echoId());

        self::assertSame('abc-123', $response->header('X-Request-Id'));
        self::assertSame('"abc-123"', $response->body);
    }

    /** @return iterable<string, array{string}> */
    public static function unusableIds(): iterable
    {
        yield 'space' => ['a b'];
        yield 'too long' => [str_repeat('a', 129)];
        yield 'non-ASCII' => ["caf\u{e9}"];
    }

    #[DataProvider('unusableIds')]
    public function testReplacesAnUnusableIncomingId(string $incoming): void
    {
        $response = (new RequestId())->process(Requests::make('GET', '/', ['X-Request-Id' => $incoming]), self::echoId());

        self::assertMatchesRegularExpression('/^[0-9a-f]{12}-1$/', (string) $response->header('X-Request-Id'));
    }

    public function testCanIgnoreIncomingIdsAndUseAnotherHeader(): void
    {
        $response = (new RequestId('X-Trace', trustIncoming: false))->process(Requests::make('GET', '/', ['X-Trace' => 'mine']), self::echoId());

        self::assertMatchesRegularExpression('/^[0-9a-f]{12}-1$/', (string) $response->header('X-Trace'));
        self::assertNull($response->header('X-Request-Id'));
    }
}
