<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\Request;
use PHPUnit\Framework\TestCase;

final class RequestTest extends TestCase
{
    public function testQueryParamsAreParsedOnceAndCached(): void
    {
        $request = new Request('GET', '/s?q=a+b&n[]=1&n[]=2', '/s', 'q=a+b&n[]=1&n[]=2', '1.1', ['host' => ['h']]);

        $params = $request->queryParams();
        self::assertSame(['q' => 'a b', 'n' => ['1', '2']], $params);
        self::assertSame($params, $request->queryParams());
        self::assertSame([], (new Request('GET', '/', '/', '', '1.1', []))->queryParams());
    }

    public function testAttributesAreMutablePerInstance(): void
    {
        $request = new Request('GET', '/u/7', '/u/7', '', '1.1', ['host' => ['h']]);
        $request->attributes['id'] = '7';

        self::assertSame(['id' => '7'], $request->attributes);
    }

    public function testPrecomputedKeepAliveWins(): void
    {
        self::assertFalse((new Request('GET', '/', '/', '', '1.1', [], '', false))->keepAlive());
        self::assertTrue((new Request('GET', '/', '/', '', '1.0', [], '', true))->keepAlive());
    }
}
