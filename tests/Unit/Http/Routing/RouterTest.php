<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing;

use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\Routing\RouteDefinitionException;
use Nexus\Http\Routing\RoutePattern;
use Nexus\Http\Routing\Router;
use Nexus\Http\Routing\RouteTarget;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RouterTest extends TestCase
{
    /** @param list<array{non-empty-list<string>, string, string}> $routes method list, pattern, label */
    private static function router(array $routes): Router
    {
        $targets = [];
        foreach ($routes as [$methods, $pattern, $label]) {
            $handler = new class ($label) implements RequestHandler {
                public function __construct(private readonly string $label) {}

                public function handle(Request $request): Response
                {
                    $params = $request->attributes[Router::PARAMS] ?? [];

                    return Response::text($this->label . ' ' . json_encode($params, \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE));
                }
            };
            $targets[] = new RouteTarget($methods, RoutePattern::parse($pattern), $handler, $label);
        }

        return Router::compile($targets);
    }

    private static function app(): Router
    {
        return self::router([
            [['GET'], '/', 'root'],
            [['GET'], '/users', 'users'],
            [['POST'], '/users', 'create'],
            [['GET'], '/users/new', 'new'],
            [['GET'], '/users/{id:\d+}', 'user-by-id'],
            [['GET'], '/users/{name}', 'user-by-name'],
            [['DELETE'], '/users/{id:\d+}', 'delete'],
            [['GET'], '/users/{name}/posts', 'posts'],
            [['GET'], '/users/admin/settings', 'admin-settings'],
            [['GET'], '/files/{path:.+}', 'files'],
            [['GET'], '/any/{rest:.*}', 'any'],
            [['GET'], '/hello/{name}', 'hello'],
            [['GET'], '/slash/', 'slash'],
            [['GET'], '/docs/{name}.{ext:html|pdf}', 'doc'],
            [['GET'], '/docs/{name}', 'doc-page'],
            [['GET'], '/v{major:\d+}.{minor:\d+}/status', 'version'],
        ]);
    }

    /** @return iterable<string, array{string, string, string}> */
    public static function matching(): iterable
    {
        yield 'root' => ['GET', '/', 'root []'];
        yield 'static' => ['GET', '/users', 'users []'];
        yield 'static by method' => ['POST', '/users', 'create []'];
        yield 'static beats param' => ['GET', '/users/new', 'new []'];
        yield 'constrained param' => ['GET', '/users/42', 'user-by-id {"id":"42"}'];
        yield 'constrained before plain' => ['GET', '/users/ada', 'user-by-name {"name":"ada"}'];
        yield 'param then literal' => ['GET', '/users/ada/posts', 'posts {"name":"ada"}'];
        yield 'backtracks from a literal' => ['GET', '/users/admin/posts', 'posts {"name":"admin"}'];
        yield 'literal branch' => ['GET', '/users/admin/settings', 'admin-settings []'];
        yield 'rest, several segments' => ['GET', '/files/a/b/c.txt', 'files {"path":"a/b/c.txt"}'];
        yield 'rest, one segment' => ['GET', '/files/c.txt', 'files {"path":"c.txt"}'];
        yield 'rest .* empty' => ['GET', '/any/', 'any {"rest":""}'];
        yield 'percent %20' => ['GET', '/hello/Ada%20Lovelace', 'hello {"name":"Ada Lovelace"}'];
        yield 'percent %2F stays in segment' => ['GET', '/hello/a%2Fb', 'hello {"name":"a/b"}'];
        yield 'percent-encoded literal' => ['GET', '/%75sers', 'users []'];
        yield 'percent UTF-8' => ['GET', '/hello/caf%C3%A9', 'hello {"name":"café"}'];
        yield 'trailing slash route' => ['GET', '/slash/', 'slash []'];
        yield 'HEAD served by GET' => ['HEAD', '/users/42', 'user-by-id {"id":"42"}'];
        yield 'params within a segment' => ['GET', '/docs/guide.pdf', 'doc {"name":"guide","ext":"pdf"}'];
        yield 'within a segment, last dot splits' => ['GET', '/docs/a.b.html', 'doc {"name":"a.b","ext":"html"}'];
        yield 'within a segment, decoded' => ['GET', '/docs/caf%C3%A9.html', 'doc {"name":"café","ext":"html"}'];
        yield 'constraint fails: plain param' => ['GET', '/docs/guide.txt', 'doc-page {"name":"guide.txt"}'];
        yield 'text and params, then a literal' => ['GET', '/v2.10/status', 'version {"major":"2","minor":"10"}'];
    }

    #[DataProvider('matching')]
    public function testMatches(string $method, string $path, string $expected): void
    {
        $response = self::app()->handle(Requests::make($method, $path));

        self::assertSame(200, $response->status);
        self::assertSame($expected, $response->body);
    }

    public function testTheMatchedRoutesTemplateIsOnTheRequest(): void
    {
        $router = self::app();
        foreach ([
            ['GET', '/users', '/users'],
            ['GET', '/users/42', '/users/{id:\d+}'],
            ['GET', '/users/ada/posts', '/users/{name}/posts'],
            ['GET', '/hello/Ada%20Lovelace', '/hello/{name}'],
            ['GET', '/%75sers', '/users'],
            ['HEAD', '/files/a/b', '/files/{path:.+}'],
            ['GET', '/nope', null],
            ['DELETE', '/users', null],
        ] as [$method, $path, $template]) {
            $request = Requests::make($method, $path);
            $router->handle($request);
            self::assertSame($template, $request->routeTemplate, "{$method} {$path}");
        }
    }

    /** @return iterable<string, array{string, string}> */
    public static function unmatched(): iterable
    {
        yield 'unknown' => ['GET', '/nope'];
        yield 'trailing slash is significant' => ['GET', '/users/ada/posts/'];
        yield 'missing trailing slash' => ['GET', '/slash'];
        yield 'empty param segment' => ['GET', '/hello/'];
        yield '.+ needs something' => ['GET', '/files/'];
        yield '%2F does not split segments' => ['GET', '/users%2Fnew'];
        yield 'asterisk-form' => ['OPTIONS', '*'];
        yield 'too deep' => ['GET', '/hello/a/b'];
        yield 'text within the segment missing' => ['GET', '/v2/status'];
        yield 'empty param within a segment' => ['GET', '/v.1/status'];
    }

    #[DataProvider('unmatched')]
    public function testNotFoundIsProblemJson(string $method, string $path): void
    {
        $response = self::app()->handle(Requests::make($method, $path));

        self::assertSame(404, $response->status);
        self::assertSame('application/problem+json', $response->header('Content-Type'));
        self::assertSame(404, Requests::json($response)['status']);
    }

    /** @return iterable<string, array{string}> */
    public static function malformed(): iterable
    {
        yield 'lone %' => ['/hello/100%'];
        yield 'one hex digit' => ['/hello/%4'];
        yield 'not hex' => ['/hello/%zz'];
    }

    #[DataProvider('malformed')]
    public function testMalformedPercentEncodingIs400(string $path): void
    {
        $response = self::app()->handle(Requests::make('GET', $path));

        self::assertSame(400, $response->status);
        self::assertStringContainsString('percent-encoding', $response->body);
    }

    public function testMethodNotAllowedListsAllowedMethodsIncludingHead(): void
    {
        $response = self::app()->handle(Requests::make('PUT', '/users/42'));

        self::assertSame(405, $response->status);
        self::assertSame('GET, HEAD, DELETE', $response->header('Allow'));
        self::assertSame('application/problem+json', $response->header('Content-Type'));
    }

    public function testMethodNotAllowedOnAStaticPath(): void
    {
        $response = self::app()->handle(Requests::make('PATCH', '/users'));

        self::assertSame(405, $response->status);
        self::assertSame('GET, HEAD, POST', $response->header('Allow'));
    }

    public function testAStaticPathFallsBackToADynamicRouteOfTheRequestMethod(): void
    {
        $router = self::router([[['GET'], '/users/new', 'new'], [['POST'], '/users/{id}', 'post-user']]);

        self::assertSame('post-user {"id":"new"}', $router->handle(Requests::make('POST', '/users/new'))->body);
    }

    public function testOptionsWithoutARouteAnswers204WithAllow(): void
    {
        $response = self::app()->handle(Requests::make('OPTIONS', '/users'));

        self::assertSame(204, $response->status);
        self::assertSame('GET, HEAD, POST, OPTIONS', $response->header('Allow'));
    }

    public function testAnExplicitHeadRouteWinsOverTheImplicitOne(): void
    {
        $router = self::router([[['GET'], '/x', 'get'], [['HEAD'], '/x', 'head']]);

        self::assertSame('head []', $router->handle(Requests::make('HEAD', '/x'))->body);
        self::assertSame('get []', $router->handle(Requests::make('GET', '/x'))->body);
    }

    public function testMethodsAreCaseSensitive(): void
    {
        self::assertSame(405, self::app()->handle(Requests::make('get', '/users'))->status);
    }

    public function testDuplicateRoutesAreRejectedEvenWithOtherParamNames(): void
    {
        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage('duplicates route');

        self::router([[['GET'], '/u/{id}', 'a'], [['GET', 'POST'], '/u/{name}', 'b']]);
    }

    public function testSameShapeUnderDifferentMethodsIsFine(): void
    {
        $router = self::router([[['GET'], '/u/{id}', 'a'], [['POST'], '/u/{name}', 'b']]);

        self::assertSame('b {"name":"x"}', $router->handle(Requests::make('POST', '/u/x'))->body);
    }

    public function testAllowedMethods(): void
    {
        self::assertSame(['GET', 'HEAD', 'DELETE'], self::app()->allowedMethods('/users/7'));
        self::assertSame([], self::app()->allowedMethods('/nope'));
        self::assertSame([], self::app()->allowedMethods('/bad%'));
    }

    public function testARememberedMatchGivesEachPathItsOwnParameters(): void
    {
        $router = self::app();
        foreach ([1, 2] as $_) {
            // The second round is answered from remembered matches: the same answers.
            self::assertSame('user-by-id {"id":"7"}', $router->handle(Requests::make('GET', '/users/7'))->body);
            self::assertSame('user-by-id {"id":"8"}', $router->handle(Requests::make('GET', '/users/8'))->body);
            self::assertSame('user-by-name {"name":"ada"}', $router->handle(Requests::make('GET', '/users/ada'))->body);
            self::assertSame('delete {"id":"7"}', $router->handle(Requests::make('DELETE', '/users/7'))->body);
            self::assertSame('user-by-name {"name":"a/b"}', $router->handle(Requests::make('GET', '/users/a%2Fb'))->body);
            self::assertSame('files {"path":"a/b/c"}', $router->handle(Requests::make('GET', '/files/a/b/c'))->body);
            self::assertSame(405, $router->handle(Requests::make('POST', '/users/7'))->status);
            self::assertSame(404, $router->handle(Requests::make('GET', '/users/7/nope'))->status);
        }
        // Matches only: 404, 405 and static paths are not remembered.
        self::assertSame(6, $router->rememberedMatches());
    }

    public function testARememberedMatchSetsTheTemplateAndFreshParametersOnEveryRequest(): void
    {
        $router = self::app();
        $router->handle(Requests::make('GET', '/hello/ada'));
        $request = Requests::make('GET', '/hello/ada');
        $request->attributes[Router::PARAMS] = ['name' => 'stale'];
        self::assertSame('hello {"name":"ada"}', $router->handle($request)->body);
        self::assertSame('/hello/{name}', $request->routeTemplate);
        self::assertSame(['name' => 'ada'], $request->attributes[Router::PARAMS]);
    }

    public function testARememberedMatchKeepsTheAttributesOthersSetAndLeavesNoneBehind(): void
    {
        $router = self::app();
        $router->handle(Requests::make('GET', '/hello/ada'));
        $first = Requests::make('GET', '/hello/ada');
        $router->handle($first);
        $first->attributes['mine'] = 'first'; // a handler or middleware writes to its request's attributes
        $second = Requests::make('GET', '/hello/ada');
        $second->attributes['request_id'] = 'r-2'; // set before routing, by a middleware

        self::assertSame('hello {"name":"ada"}', $router->handle($second)->body);
        self::assertSame(['request_id' => 'r-2', Router::PARAMS => ['name' => 'ada']], $second->attributes);
        $third = Requests::make('GET', '/hello/ada');
        $router->handle($third);
        self::assertSame([Router::PARAMS => ['name' => 'ada']], $third->attributes);
        self::assertSame([Router::PARAMS => ['name' => 'ada'], 'mine' => 'first'], $first->attributes);
    }

    public function testARawPathWithPercentReachesTheDecodedRouteEvenBesideAStaticPatternWithPercent(): void
    {
        $router = self::router([
            [['GET'], '/a%20b', 'static-percent'],
            [['GET'], '/a b', 'decoded'],
            [['GET'], '/x', 'x'],
        ]);
        foreach ([1, 2] as $_) {
            self::assertSame('decoded []', $router->handle(Requests::make('GET', '/a%20b'))->body, 'static paths are looked up for paths without "%" only');
            self::assertSame('decoded []', $router->handle(Requests::make('GET', '/a b'))->body);
            self::assertSame('x []', $router->handle(Requests::make('GET', '/x'))->body);
        }
    }

    public function testRememberedMatchesAreBounded(): void
    {
        $router = self::app();
        for ($i = 0; $i < Router::MATCH_CACHE_ENTRIES * 3; ++$i) {
            self::assertSame('user-by-id {"id":"' . $i . '"}', $router->handle(Requests::make('GET', '/users/' . $i))->body);
            self::assertLessThanOrEqual(Router::MATCH_CACHE_ENTRIES, $router->rememberedMatches());
        }
        // A path over the length bound is matched and not remembered.
        $long = str_repeat('x', Router::MATCH_CACHE_MAX_PATH);
        $before = $router->rememberedMatches();
        self::assertSame('user-by-name {"name":"' . $long . '"}', $router->handle(Requests::make('GET', '/users/' . $long))->body);
        self::assertSame($before, $router->rememberedMatches());
    }
}
