<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Http\Handler\Actor;
use Nexus\Http\Handler\Body;
use Nexus\Http\Handler\HandlerDefinitionException;
use Nexus\Http\Handler\Query;
use Nexus\Http\Middleware\AccessLog;
use Nexus\Http\Middleware\Cors;
use Nexus\Http\Middleware\ErrorHandler;
use Nexus\Http\Middleware\RequestId;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Routing\RouteDefinitionException;
use Nexus\Http\Routing\RouteGroup;
use Nexus\Http\Routing\UrlGenerationException;
use Nexus\Log\MemoryLogger;
use Nexus\TestKit\TestKit;
use Nexus\Tests\Unit\Http\Handler\Fixture\ArrayContainer;
use Nexus\Tests\Unit\Http\Handler\Fixture\CreateUser;
use Nexus\Tests\Unit\Http\Handler\Fixture\Greeter;
use Nexus\Tests\Unit\Http\Handler\Fixture\PoliteGreeter;
use Nexus\Tests\Unit\Http\Routing\Fixture\ArticleController;
use Nexus\Tests\Unit\Http\Routing\Fixture\NamedMiddleware;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

final class ApplicationTest extends TestCase
{
    /** @param array<string, string> $headers */
    private static function call(Application $app, string $method, string $target, string $body = '', array $headers = []): Response
    {
        return $app->handler()->handle(Requests::make($method, $target, $headers, $body));
    }

    public function testAStaticAndANamedDynamicRoute(): void
    {
        $app = new Application();
        $app->get('/', static fn(): string => 'home');
        $app->get('/hello/{name}', static fn(string $name): string => "Hello, {$name}!")->name('hello');

        self::assertSame('home', self::call($app, 'GET', '/')->body);
        self::assertSame('Hello, Ada Lovelace!', self::call($app, 'GET', '/hello/Ada%20Lovelace')->body);
        self::assertSame('/hello/Ada%20Lovelace', $app->url('hello', ['name' => 'Ada Lovelace']));
    }

    public function testParametersWithinASegmentReachTheHandlerTyped(): void
    {
        $app = new Application();
        $app->get('/files/{name}.{ext}', static fn(string $name, string $ext): array => ['name' => $name, 'ext' => $ext])->name('file');
        $app->get('/page-{page:\d+}', static fn(int $page): string => 'page ' . ($page + 1));

        self::assertSame('{"name":"report.tar","ext":"gz"}', self::call($app, 'GET', '/files/report.tar.gz')->body);
        self::assertSame('page 8', self::call($app, 'GET', '/page-7')->body);
        self::assertSame(404, self::call($app, 'GET', '/page-x')->status);
        self::assertSame('/files/a%20b.txt', $app->url('file', ['name' => 'a b', 'ext' => 'txt']));
    }

    public function testEveryBuilderMethodRoutesItsMethod(): void
    {
        $app = new Application();
        $echo = static fn(Request $r): string => $r->method();
        $app->post('/r', $echo);
        $app->put('/r', $echo);
        $app->patch('/r', $echo);
        $app->delete('/r', $echo);
        $app->map(['GET'], '/r', $echo);
        $app->any('/any', $echo);

        foreach (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as $method) {
            self::assertSame($method, self::call($app, $method, '/r')->body);
            self::assertSame($method, self::call($app, $method, '/any')->body);
        }
        self::assertSame('OPTIONS', self::call($app, 'OPTIONS', '/any')->body);
        self::assertSame(204, self::call($app, 'OPTIONS', '/r')->status);
    }

    public function testNotFoundAndMethodNotAllowedGoThroughGlobalMiddleware(): void
    {
        $app = new Application();
        $app->middleware(new RequestId());
        $app->get('/only-get', static fn(): string => 'x');

        $missing = self::call($app, 'GET', '/missing');
        $wrongMethod = self::call($app, 'POST', '/only-get');

        self::assertSame(404, $missing->status);
        self::assertNotNull($missing->header('X-Request-Id'));
        self::assertSame(405, $wrongMethod->status);
        self::assertSame('GET, HEAD', $wrongMethod->header('Allow'));
        self::assertNotNull($wrongMethod->header('X-Request-Id'));
        self::assertSame(400, self::call($app, 'GET', '/only-get%zz')->status);
    }

    public function testMiddlewareOrderGlobalThenGroupsThenRoute(): void
    {
        $app = new Application();
        $app->middleware(new NamedMiddleware('global'));
        $trail = static fn(Request $r): mixed => $r->attributes['trail'] ?? [];
        $app->group('/api', static function (RouteGroup $api) use ($trail): void {
            $api->group('/v1', static function (RouteGroup $v1) use ($trail): void {
                $v1->get('/items', $trail)->middleware(new NamedMiddleware('route'));
            }, middleware: [new NamedMiddleware('v1')]);
            $api->get('/plain', $trail);
        }, middleware: [new NamedMiddleware('api')]);
        $app->get('/outside', $trail);

        self::assertSame('["global","api","v1","route"]', self::call($app, 'GET', '/api/v1/items')->body);
        self::assertSame('["global","api"]', self::call($app, 'GET', '/api/plain')->body);
        self::assertSame('["global"]', self::call($app, 'GET', '/outside')->body);
        self::assertNull(self::call($app, 'GET', '/api/missing')->header('X-api'), 'group middleware runs only for matched routes');
    }

    public function testPsr15MiddlewareGloballyAndOnARoute(): void
    {
        $tag = new class implements MiddlewareInterface {
            public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
            {
                return $handler->handle($request)->withAddedHeader('X-Psr', 'seen');
            }
        };
        $app = new Application();
        $app->middleware($tag);
        $app->get('/a', static fn(): string => 'a')->middleware($tag);

        self::assertSame('seen, seen', self::call($app, 'GET', '/a')->header('X-Psr'));
        self::assertSame('seen', self::call($app, 'GET', '/zzz')->header('X-Psr'));
    }

    public function testCorsPreflightWithoutAnOptionsRoute(): void
    {
        $app = new Application();
        $app->middleware(new Cors(['https://app.example']));
        $app->post('/api', static fn(): string => 'x');

        $response = self::call($app, 'OPTIONS', '/api', headers: ['Origin' => 'https://app.example', 'Access-Control-Request-Method' => 'POST']);

        self::assertSame(204, $response->status);
        self::assertSame('https://app.example', $response->header('Access-Control-Allow-Origin'));
    }

    public function testAttributeRoutes(): void
    {
        $app = new Application();
        $app->routesFromClass(ArticleController::class);

        self::assertSame('["first"]', self::call($app, 'GET', '/articles')->body);
        self::assertSame('article 5', self::call($app, 'GET', '/articles/5')->body);
        self::assertSame('updated 5', self::call($app, 'PATCH', '/articles/5')->body);
        self::assertSame('updated 6', self::call($app, 'POST', '/articles/6/edit')->body);
        self::assertSame(404, self::call($app, 'GET', '/articles/x')->status);
        self::assertSame('/articles/5', $app->url('article', ['id' => 5]));
    }

    public function testArgumentsFromEverywhere(): void
    {
        $kit = new TestKit();
        $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply('pong');
        }), 'pinger');
        $container = new ArrayContainer([Greeter::class => static fn(): Greeter => new PoliteGreeter()]);
        $app = new Application($kit->system, $container);
        $app->post('/users/{id:\d+}', static fn(
            int $id,
            #[Query]
            int $page,
            #[Body]
            CreateUser $user,
            Greeter $greeter,
            #[Actor('pinger')]
            ActorRef $pinger,
            Request $request,
        ): array => [
            'id' => $id,
            'page' => $page,
            'name' => $user->name,
            'greeting' => $greeter->greet($user->name),
            'actor' => $pinger->ask('ping')->await(),
            'path' => $request->path(),
        ]);

        $response = self::call($app, 'POST', '/users/3?page=2', '{"name":"Ada","age":36}');

        self::assertSame(200, $response->status, $response->body);
        self::assertSame(['id' => 3, 'page' => 2, 'name' => 'Ada', 'greeting' => 'Good day, Ada.', 'actor' => 'pong', 'path' => '/users/3'], Requests::json($response));
        self::assertSame(422, self::call($app, 'POST', '/users/3?page=2', '{"name":"Ada"}')->status);
        self::assertSame(400, self::call($app, 'POST', '/users/3?page=2', 'nope')->status);
        self::assertSame(400, self::call($app, 'POST', '/users/3', '{"name":"Ada","age":36}')->status);
    }

    public function testErrorsAreProblemJsonAndLoggedThroughTheSystemLogger(): void
    {
        $kit = new TestKit();
        $app = new Application($kit->system);
        $app->get('/boom', static fn(): string => throw new \RuntimeException('secret detail'));
        $app->get('/bad-return', static fn(): int => 1);
        $app->get('/ghost', static fn(#[Actor('ghost')] ActorRef $ghost): string => 'no');

        $boom = self::call($app, 'GET', '/boom');
        self::assertSame(500, $boom->status);
        self::assertStringNotContainsString('secret detail', $boom->body);
        self::assertSame(500, self::call($app, 'GET', '/bad-return')->status);
        self::assertSame(500, self::call($app, 'GET', '/ghost')->status);
        $logged = array_map(static fn(array $r): string => \is_string($r['context']['message'] ?? null) ? $r['context']['message'] : '', $kit->logger->records);
        self::assertContains('secret detail', $logged);
        self::assertContains('The handler of route GET /bad-return returned int; return a Response, string, array, JsonSerializable or null.', $logged);
        self::assertContains("No actor is running at /user/ghost (asked for by #[Actor('ghost')]); spawn it before serving requests.", $logged);
    }

    public function testGlobalMiddlewareSeesErrorResponsesNotExceptions(): void
    {
        $logger = new MemoryLogger();
        $app = new Application(logger: new MemoryLogger());
        $app->middleware(new RequestId(), new Cors(['https://app.example']), new AccessLog($logger));
        $app->get('/boom', static fn(): string => throw new \RuntimeException('boom'));

        $response = self::call($app, 'GET', '/boom', headers: ['Origin' => 'https://app.example']);

        self::assertSame(500, $response->status);
        self::assertNotNull($response->header('X-Request-Id'));
        self::assertSame('https://app.example', $response->header('Access-Control-Allow-Origin'));
        self::assertSame(500, $logger->records[0]['context']['status']);
    }

    public function testAGlobalErrorHandlerOfTheUserRendersErrors(): void
    {
        $app = new Application();
        $app->middleware(new RequestId(), new ErrorHandler(debug: true));
        $app->get('/boom', static fn(): string => throw new \RuntimeException('shown'));

        self::assertSame('shown', Requests::json(self::call($app, 'GET', '/boom'))['detail']);
    }

    public function testDebugModeShowsTheException(): void
    {
        $logger = new MemoryLogger();
        $app = new Application(debug: true, logger: $logger);
        $app->get('/boom', static fn(): string => throw new \RuntimeException('secret detail'));

        $problem = Requests::json(self::call($app, 'GET', '/boom'));

        self::assertSame('secret detail', $problem['detail']);
        self::assertIsArray($problem['exception']);
        self::assertSame('RuntimeException', $problem['exception']['class']);
        self::assertCount(1, $logger->records);
    }

    public function testHandlerCompilesOnceAndFreezesTheApplication(): void
    {
        $app = new Application();
        $app->get('/a', static fn(): string => 'a')->name('a');
        $handler = $app->handler();

        self::assertSame($handler, $app->handler());
        self::assertSame('/a', $app->url('a'));
        try {
            $app->get('/b', static fn(): string => 'b');
            self::fail('routes after handler() must be rejected');
        } catch (RouteDefinitionException $e) {
            self::assertStringContainsString('declare all routes before calling handler()', $e->getMessage());
        }
        $this->expectException(RouteDefinitionException::class);
        $app->middleware(new RequestId());
    }

    public function testBootErrors(): void
    {
        $duplicateName = new Application();
        $duplicateName->get('/a', static fn(): string => '')->name('x');
        $duplicateName->get('/b', static fn(): string => '')->name('x');
        self::assertBootError($duplicateName, RouteDefinitionException::class, 'Route name "x" is used twice');

        $duplicateRoute = new Application();
        $duplicateRoute->get('/u/{id}', static fn(): string => '');
        $duplicateRoute->group('/u', static fn(RouteGroup $g): mixed => $g->get('/{name}', static fn(): string => ''));
        self::assertBootError($duplicateRoute, RouteDefinitionException::class, 'Route GET /u/{name} duplicates route GET /u/{id}');

        $unresolvable = new Application();
        $unresolvable->get('/x/{id}', static fn(int $idd): string => '')->name('x');
        self::assertBootError($unresolvable, HandlerDefinitionException::class, 'Route GET /x/{id} ("x"), handler closure at ApplicationTest.php');

        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage('put text between them');
        (new Application())->get('/file/{name}{ext}', static fn(): string => '');
    }

    public function testUrlErrors(): void
    {
        $app = new Application();
        $app->get('/u/{id:\d+}', static fn(): string => '')->name('user');

        $this->expectException(UrlGenerationException::class);
        $this->expectExceptionMessage('Route "user" (/u/{id:\d+}) needs the parameter(s) id');
        $app->url('user');
    }

    /** @param class-string<\Throwable> $class */
    private static function assertBootError(Application $app, string $class, string $message): void
    {
        try {
            $app->handler();
            self::fail("expected {$class}");
        } catch (\Throwable $e) {
            self::assertInstanceOf($class, $e);
            self::assertStringContainsString($message, $e->getMessage());
        }
    }
}
