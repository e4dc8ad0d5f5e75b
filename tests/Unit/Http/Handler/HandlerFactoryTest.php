<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Handler;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Handler\Actor;
use Nexus\Http\Handler\ActorNotFoundException;
use Nexus\Http\Handler\Body;
use Nexus\Http\Handler\CallableHandler;
use Nexus\Http\Handler\HandlerDefinitionException;
use Nexus\Http\Handler\HandlerFactory;
use Nexus\Http\Handler\InvalidReturnValueException;
use Nexus\Http\Handler\Query;
use Nexus\Http\Middleware\ErrorHandler;
use Nexus\Http\Middleware\Pipeline;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\Routing\RoutePattern;
use Nexus\Http\Routing\Router;
use Nexus\Http\Routing\RouteTarget;
use Nexus\TestKit\TestKit;
use Nexus\Tests\Unit\Http\Handler\Fixture\ArrayContainer;
use Nexus\Tests\Unit\Http\Handler\Fixture\CreateUser;
use Nexus\Tests\Unit\Http\Handler\Fixture\Greeter;
use Nexus\Tests\Unit\Http\Handler\Fixture\GreetingController;
use Nexus\Tests\Unit\Http\Handler\Fixture\InvokableHandler;
use Nexus\Tests\Unit\Http\Handler\Fixture\Money;
use Nexus\Tests\Unit\Http\Handler\Fixture\PlainController;
use Nexus\Tests\Unit\Http\Handler\Fixture\PoliteGreeter;
use Nexus\Tests\Unit\Http\Handler\Fixture\Temperature;
use Nexus\Tests\Unit\Http\Routing\Requests;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

final class HandlerFactoryTest extends TestCase
{
    /** Compiles one GET/POST route for $handler and calls it with $target, behind an ErrorHandler. */
    private static function serve(
        mixed $handler,
        string $pattern,
        string $target,
        string $body = '',
        ?ArrayContainer $container = null,
        ?ActorSystem $system = null,
    ): Response {
        $factory = new HandlerFactory($container, $system);
        $route = RoutePattern::parse($pattern);
        $router = Router::compile([new RouteTarget(['GET', 'POST'], $route, $factory->create($handler, $route, 'GET ' . $pattern), 'test')]);

        return Pipeline::wrap([new ErrorHandler()], $router)->handle(Requests::make($body === '' ? 'GET' : 'POST', $target, [], $body));
    }

    private static function container(): ArrayContainer
    {
        return new ArrayContainer([
            Greeter::class => static fn(): Greeter => new PoliteGreeter(),
            GreetingController::class => static fn(): GreetingController => new GreetingController(new PoliteGreeter()),
        ]);
    }

    // --- handler kinds -------------------------------------------------------------------------

    public function testClosure(): void
    {
        self::assertSame('hi Ada', self::serve(static fn(string $name): string => "hi {$name}", '/{name}', '/Ada')->body);
    }

    public function testInvokableClassNameAndObject(): void
    {
        self::assertSame('invoked Ada', self::serve(InvokableHandler::class, '/{name}', '/Ada')->body);
        self::assertSame('invoked Bo', self::serve(new InvokableHandler(), '/{name}', '/Bo')->body);
    }

    public function testClassMethodBuiltWithNewOrTheContainerOnce(): void
    {
        self::assertSame('plain 7', self::serve([PlainController::class, 'show'], '/{id}', '/7')->body);
        self::assertSame('v1', self::serve([PlainController::class, 'version'], '/', '/')->body);

        $container = self::container();
        $factory = new HandlerFactory($container);
        $pattern = RoutePattern::parse('/{name}');
        GreetingController::$built = 0;
        $a = $factory->create([GreetingController::class, 'greet'], $pattern, 'a');
        $factory->create([GreetingController::class, 'greet'], $pattern, 'b');
        self::assertSame(1, GreetingController::$built, 'a controller class is built once per factory');
        $request = Requests::make('GET', '/Ada');
        $request->attributes[Router::PARAMS] = ['name' => 'Ada'];
        self::assertSame('Good day, Ada.', $a->handle($request)->body);
    }

    public function testObjectMethod(): void
    {
        self::assertSame('plain 9', self::serve([new PlainController(), 'show'], '/{id}', '/9')->body);
    }

    public function testRequestHandlersAreUsedAsIs(): void
    {
        $native = new class implements RequestHandler {
            public function handle(Request $request): Response
            {
                return Response::text('native');
            }
        };
        $psr = new class implements RequestHandlerInterface {
            public function handle(ServerRequestInterface $request): ResponseInterface
            {
                return new \Nyholm\Psr7\Response(201, ['X-Psr' => 'yes'], 'psr ' . $request->getUri()->getPath());
            }
        };

        self::assertSame($native, (new HandlerFactory())->create($native, RoutePattern::parse('/'), 'r'));
        $response = self::serve($psr, '/p', '/p');
        self::assertSame([201, 'psr /p', 'yes'], [$response->status, $response->body, $response->header('X-Psr')]);
    }

    /** @return iterable<string, array{mixed, string}> */
    public static function unusableHandlers(): iterable
    {
        yield 'int' => [42, 'the handler (int) is not usable'];
        yield 'unknown method' => [[PlainController::class, 'nope'], 'handler Nexus\Tests\Unit\Http\Handler\Fixture\PlainController::nope() does not exist'];
        yield 'needs constructor args' => [[GreetingController::class, 'greet'], 'register it in the PSR-11 container'];
        yield 'non-invokable object' => [new \stdClass(), 'the handler (stdClass) is not usable'];
    }

    #[DataProvider('unusableHandlers')]
    public function testUnusableHandlersFailAtBoot(mixed $handler, string $message): void
    {
        $this->expectException(HandlerDefinitionException::class);
        $this->expectExceptionMessage($message);

        (new HandlerFactory())->create($handler, RoutePattern::parse('/{name}'), 'GET /{name}');
    }

    // --- path parameters -----------------------------------------------------------------------

    /** @return iterable<string, array{\Closure, string, string, int, string}> */
    public static function pathParameters(): iterable
    {
        yield 'int' => [static fn(int $id): string => var_export($id, true), '/{id}', '/42', 200, '42'];
        yield 'negative int' => [static fn(int $id): string => var_export($id, true), '/{id}', '/-3', 200, '-3'];
        yield 'leading zeros' => [static fn(int $id): string => var_export($id, true), '/{id:\d+}', '/007', 200, '7'];
        yield 'not an int -> 404' => [static fn(int $id): string => 'no', '/{id}', '/abc', 404, 'must be an integer'];
        yield 'int overflow -> 404' => [static fn(int $id): string => 'no', '/{id}', '/99999999999999999999', 404, 'must be an integer'];
        yield 'float' => [static fn(float $x): string => var_export($x, true), '/{x}', '/2.5', 200, '2.5'];
        yield 'not a float -> 404' => [static fn(float $x): string => 'no', '/{x}', '/2.5x', 404, 'must be a float'];
        yield 'bool' => [static fn(bool $on): string => var_export($on, true), '/{on}', '/yes', 200, 'true'];
        yield 'bool false' => [static fn(bool $on): string => var_export($on, true), '/{on}', '/off', 200, 'false'];
        yield 'not a bool -> 404' => [static fn(bool $on): string => 'no', '/{on}', '/maybe', 404, 'must be a bool'];
        yield 'string, decoded' => [static fn(string $name): string => $name, '/{name}', '/a%20b', 200, 'a b'];
        yield 'untyped' => [static fn($name): string => \is_string($name) ? $name : 'no', '/{name}', '/x', 200, 'x'];
        yield 'rest' => [static fn(string $path): string => $path, '/f/{path:.+}', '/f/a/b', 200, 'a/b'];
    }

    #[DataProvider('pathParameters')]
    public function testPathParametersAreCastToTheDeclaredType(\Closure $handler, string $pattern, string $target, int $status, string $body): void
    {
        $response = self::serve($handler, $pattern, $target);

        self::assertSame($status, $response->status);
        self::assertStringContainsString($body, $response->body);
    }

    public function testTheRequestItself(): void
    {
        self::assertSame('GET /r', self::serve(static fn(Request $r): string => $r->method() . ' ' . $r->path(), '/r', '/r')->body);
    }

    // --- query parameters ----------------------------------------------------------------------

    /** @return iterable<string, array{string, int, string}> */
    public static function queries(): iterable
    {
        yield 'defaults' => ['/q', 200, '1|null|[]|false'];
        yield 'values' => ['/q?page=3&term=a+b&tags[]=x&tags[]=y&exact=1', 200, '3|"a b"|["x","y"]|true'];
        yield 'single value for array' => ['/q?tags=x', 200, '1|null|["x"]|false'];
        yield 'empty int uses default' => ['/q?page=', 200, '1|null|[]|false'];
        yield 'bad int -> 400' => ['/q?page=two', 400, 'Query parameter \"page\" must be int, got \"two\"'];
        yield 'list for scalar -> 400' => ['/q?page[]=1', 400, 'must be a single value, not a list'];
    }

    #[DataProvider('queries')]
    public function testQueryParameters(string $target, int $status, string $body): void
    {
        $handler = static fn(
            #[Query]
            int $page = 1,
            #[Query('term')]
            ?string $search = null,
            #[Query]
            array $tags = [],
            #[Query]
            bool $exact = false,
        ): string => implode('|', [json_encode($page), json_encode($search), json_encode($tags), json_encode($exact)]);
        $response = self::serve($handler, '/q', $target);

        self::assertSame($status, $response->status);
        self::assertStringContainsString($body, $response->body);
    }

    public function testARequiredQueryParameterIsMissing(): void
    {
        $response = self::serve(static fn(#[Query] int $limit): string => (string) $limit, '/q', '/q');

        self::assertSame(400, $response->status);
        self::assertStringContainsString('Query parameter \"limit\" is required.', $response->body);
    }

    // --- body ----------------------------------------------------------------------------------

    public function testJsonBodyAsArrayAndRawString(): void
    {
        self::assertSame('{"a":1}', self::serve(static fn(#[Body] array $data): array => $data, '/b', '/b', '{"a":1}')->body);
        self::assertSame('raw', self::serve(static fn(#[Body] string $raw): string => $raw, '/b', '/b', 'raw')->body);
    }

    /** @return iterable<string, array{string, int, string}> */
    public static function bodies(): iterable
    {
        yield 'valid' => ['{"name":"Ada","age":36,"score":3}', 200, 'Ada 36 - 3 no'];
        yield 'all fields' => ['{"name":"Ada","age":36,"email":"a@x","score":1.5,"admin":true,"extra":1}', 200, 'Ada 36 a@x 1.5 yes'];
        yield 'null for nullable' => ['{"name":"Ada","age":36,"email":null}', 200, 'Ada 36 - 0 no'];
        yield 'invalid JSON -> 400' => ['{"name":', 400, 'The request body is not valid JSON'];
        yield 'scalar JSON -> 422' => ['"Ada"', 422, 'must be a JSON object or array, got string'];
        yield 'list -> 422' => ['[1,2]', 422, 'must be a JSON object for CreateUser'];
        yield 'missing and mistyped -> 422 lists all' => ['{"age":"36","admin":1}', 422, 'Invalid CreateUser: \"name\" is required; \"age\" must be int, got string; \"admin\" must be bool, got int.'];
    }

    #[DataProvider('bodies')]
    public function testDtoBodies(string $body, int $status, string $expected): void
    {
        $handler = static fn(#[Body] CreateUser $user): string => \sprintf('%s %d %s %s %s', $user->name, $user->age, $user->email ?? '-', $user->score, $user->admin ? 'yes' : 'no');
        $response = self::serve($handler, '/users', '/users', $body);

        self::assertSame($status, $response->status, $response->body);
        self::assertStringContainsString($expected, $response->body);
        if ($status !== 200) {
            self::assertSame('application/problem+json', $response->header('Content-Type'));
        }
    }

    public function testUnprocessableLists(): void
    {
        $response = self::serve(static fn(#[Body] CreateUser $user): string => 'no', '/u', '/u', '{}');

        self::assertSame(['"name" is required', '"age" is required'], Requests::json($response)['errors']);
    }

    public function testADtoConstructorRejectingInputIs422(): void
    {
        $response = self::serve(static fn(#[Body] Temperature $t): string => (string) $t->celsius, '/t', '/t', '{"celsius":-300}');

        self::assertSame(422, $response->status);
        self::assertStringContainsString('Invalid Temperature: celsius must be at least -273.15.', $response->body);
        self::assertSame('20', self::serve(static fn(#[Body] Temperature $t): string => (string) $t->celsius, '/t', '/t', '{"celsius":20}')->body);
    }

    public function testAnEmptyBody(): void
    {
        self::assertSame(400, self::serve(static fn(#[Body] array $data): string => 'no', '/b', '/b')->status);
        self::assertSame('none', self::serve(static fn(#[Body] ?array $data): string => $data === null ? 'none' : 'some', '/b', '/b')->body);
    }

    // --- services and actors -------------------------------------------------------------------

    public function testServicesComeFromTheContainerPerRequest(): void
    {
        $container = self::container();
        $response = self::serve(static fn(Greeter $greeter, string $name): string => $greeter->greet($name), '/{name}', '/Ada', container: $container);

        self::assertSame('Good day, Ada.', $response->body);
        self::assertSame(1, $container->gets);
    }

    public function testAnOptionalServiceWithoutContainerGetsItsDefault(): void
    {
        self::assertSame('none', self::serve(static fn(?Greeter $greeter = null): string => $greeter === null ? 'none' : 'some', '/', '/')->body);
    }

    public function testAnActorAskedAndAwaitedFromTheHandler(): void
    {
        $kit = new TestKit();
        $kit->spawn(Behavior::withState(0, static function (int $count, mixed $message, ActorContext $ctx): int {
            if ($message === 'get') {
                $ctx->reply($count);
            }

            return $message === 'inc' ? $count + 1 : $count;
        }), 'counter');
        $handler = static function (#[Actor('counter')] ActorRef $counter): array {
            $counter->tell('inc');
            $counter->tell('inc');

            return ['count' => $counter->ask('get')->await()];
        };

        self::assertSame('{"count":2}', self::serve($handler, '/count', '/count', system: $kit->system)->body);
        self::assertSame('{"count":4}', self::serve($handler, '/count', '/count', system: $kit->system)->body);
        self::assertSame('/user/counter', self::serve(static fn(#[Actor('/user/counter')] ActorRef $c): string => $c->path(), '/p', '/p', system: $kit->system)->body);
    }

    public function testAMissingActorFailsTheRequestWithAClearError(): void
    {
        $kit = new TestKit();
        $factory = new HandlerFactory(null, $kit->system);
        $pattern = RoutePattern::parse('/');
        $handler = $factory->create(static fn(#[Actor('ghost')] ActorRef $ghost): string => 'no', $pattern, 'GET /');

        $this->expectException(ActorNotFoundException::class);
        $this->expectExceptionMessage('No actor is running at /user/ghost');
        $handler->handle(Requests::make('GET', '/'));
    }

    /** @return iterable<string, array{\Closure, string}> */
    public static function unresolvable(): iterable
    {
        yield 'unknown scalar' => [static fn(int $page): string => '', 'Route GET /{name}, handler closure at HandlerFactoryTest.php:%d, parameter $page: not a route parameter of "/{name}" (it has name)'];
        yield 'service without container' => [static fn(Greeter $g): string => '', 'parameter $g: no service of type Nexus\Tests\Unit\Http\Handler\Fixture\Greeter because no PSR-11 container was given'];
        yield 'ActorRef without #[Actor]' => [static fn(ActorRef $a): string => '', 'parameter $a: an ActorRef parameter needs #[Actor(\'name\')]'];
        yield '#[Actor] without system' => [static fn(#[Actor('x')] ActorRef $a): string => '', "#[Actor('x')] needs an ActorSystem"];
        yield 'variadic' => [static fn(string ...$name): string => '', 'variadic parameters cannot be resolved'];
        yield 'array path parameter' => [static fn(array $name): string => '', 'a path parameter cannot be an array'];
        yield 'object path parameter' => [static fn(\DateTimeImmutable $name = new \DateTimeImmutable()): string => '', 'type DateTimeImmutable is not supported here'];
        yield '#[Body] int' => [static fn(#[Body] int $n): string => '', '#[Body] needs the type array'];
        yield '#[Body] interface' => [static fn(#[Body] Greeter $g): string => '', '#[Body] type Nexus\Tests\Unit\Http\Handler\Fixture\Greeter is not a class'];
        yield '#[Body] DTO with object field' => [static fn(#[Body] \ArrayObject $o): string => '', 'only int, float, string, bool, array and mixed'];
        yield '#[Query] object' => [static fn(#[Query] \stdClass $o): string => '', 'type stdClass is not supported here'];
    }

    #[DataProvider('unresolvable')]
    public function testUnresolvableParametersFailAtBootNamingRouteHandlerAndParameter(\Closure $handler, string $message): void
    {
        $this->expectException(HandlerDefinitionException::class);
        $this->expectExceptionMessageMatches('~' . str_replace('%d', '\d+', preg_quote($message, '~')) . '~');

        (new HandlerFactory())->create($handler, RoutePattern::parse('/{name}'), 'GET /{name}');
    }

    public function testAMissingServiceInAGivenContainerFailsAtBoot(): void
    {
        $this->expectException(HandlerDefinitionException::class);
        $this->expectExceptionMessage('no service of type Countable in the container');

        (new HandlerFactory(new ArrayContainer([])))->create(static fn(\Countable $c): string => '', RoutePattern::parse('/'), 'GET /');
    }

    // --- return values -------------------------------------------------------------------------

    /** @return iterable<string, array{mixed, int, string, string}> */
    public static function returns(): iterable
    {
        yield 'Response' => [Response::html('<p>', 201), 201, 'text/html; charset=utf-8', '<p>'];
        yield 'string' => ['hello', 200, 'text/plain; charset=utf-8', 'hello'];
        yield 'array' => [['a' => [1, 2]], 200, 'application/json', '{"a":[1,2]}'];
        yield 'list' => [[1, 'x/y'], 200, 'application/json', '[1,"x/y"]'];
        yield 'JsonSerializable' => [new Money(1250), 200, 'application/json', '{"amount":"12.50"}'];
        yield 'null' => [null, 204, '', ''];
    }

    #[DataProvider('returns')]
    public function testReturnValuesBecomeResponses(mixed $value, int $status, string $type, string $body): void
    {
        $response = self::serve(static fn(): mixed => $value, '/', '/');

        self::assertSame([$status, $type, $body], [$response->status, (string) $response->header('Content-Type'), $response->body]);
    }

    public function testAnyOtherReturnValueIsA500WithAClearMessage(): void
    {
        self::assertSame(500, self::serve(static fn(): int => 42, '/', '/')->status);

        $this->expectException(InvalidReturnValueException::class);
        $this->expectExceptionMessage('The handler of route GET /x returned int; return a Response, string, array, JsonSerializable or null.');
        CallableHandler::convert(42, 'GET /x');
    }
}
