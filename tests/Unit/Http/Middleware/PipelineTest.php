<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Middleware;

use Nexus\Http\Middleware\Pipeline;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Tests\Unit\Http\Routing\Fixture\NamedMiddleware;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\TestCase;

final class PipelineTest extends TestCase
{
    public function testRunsMiddlewareOutermostFirst(): void
    {
        $handler = Handlers::of(static fn(Request $r): Response => Response::json($r->attributes['trail'] ?? []));
        $pipeline = Pipeline::wrap([new NamedMiddleware('a'), new NamedMiddleware('b'), new NamedMiddleware('c')], $handler);

        $response = $pipeline->handle(Requests::make('GET', '/'));

        self::assertSame('["a","b","c"]', $response->body);
        self::assertSame(['Content-Type', 'X-c', 'X-b', 'X-a'], array_keys($response->headers), 'responses unwind innermost first');
    }

    public function testNoMiddlewareIsTheHandlerItself(): void
    {
        $handler = Handlers::ok();

        self::assertSame($handler, Pipeline::wrap([], $handler));
    }
}
