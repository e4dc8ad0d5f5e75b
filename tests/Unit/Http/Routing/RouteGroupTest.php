<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing;

use Nexus\Http\Routing\RouteDefinition;
use Nexus\Http\Routing\RouteDefinitionException;
use Nexus\Http\Routing\RouteGroup;
use Nexus\Tests\Unit\Http\Routing\Fixture\ArticleController;
use Nexus\Tests\Unit\Http\Routing\Fixture\NamedMiddleware;
use Nexus\Tests\Unit\Http\Routing\Fixture\NoRoutesController;
use Nexus\Tests\Unit\Http\Routing\Fixture\PrivateRouteController;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RouteGroupTest extends TestCase
{
    /** @return array<string, string> label => pattern */
    private static function declared(RouteGroup $routes): array
    {
        $result = [];
        foreach ($routes->routes->all() as $route) {
            $result[$route->label()] = $route->pattern->pattern;
        }

        return $result;
    }

    public function testBuilderMethods(): void
    {
        $routes = RouteGroup::root();
        $h = static fn(): null => null;
        $routes->get('/g', $h);
        $routes->post('/p', $h);
        $routes->put('/u', $h);
        $routes->patch('/pa', $h);
        $routes->delete('/d', $h);
        $routes->any('/a', $h);
        $routes->map(['get', 'Post', 'GET'], '/m', $h);

        $methods = array_map(static fn(RouteDefinition $r): array => $r->methods, $routes->routes->all());
        self::assertSame([['GET'], ['POST'], ['PUT'], ['PATCH'], ['DELETE'], RouteGroup::STANDARD_METHODS, ['GET', 'POST']], $methods);
    }

    public function testNestedGroupsPrefixPathsAndChainMiddleware(): void
    {
        $routes = RouteGroup::root();
        $outer = new NamedMiddleware('outer');
        $inner = new NamedMiddleware('inner');
        $late = new NamedMiddleware('late');
        $route = null;
        $api = $routes->group('/api', static function (RouteGroup $api) use ($inner, &$route): void {
            $api->group('/v1', static function (RouteGroup $v1) use (&$route): void {
                $route = $v1->get('/users', static fn(): null => null);
            }, [$inner]);
        }, [$outer]);
        $api->middleware($late);

        self::assertInstanceOf(RouteDefinition::class, $route);
        self::assertSame('/api/v1/users', $route->pattern->pattern);
        $own = new NamedMiddleware('route');
        $route->middleware($own);
        self::assertSame([$outer, $late, $inner, $own], $route->pipeline());
    }

    /** @return iterable<string, array{string}> */
    public static function badPrefixes(): iterable
    {
        yield 'empty' => [''];
        yield 'no slash' => ['api'];
        yield 'trailing slash' => ['/api/'];
    }

    #[DataProvider('badPrefixes')]
    public function testRejectsBadPrefixes(string $prefix): void
    {
        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage('must start with "/" and not end with "/"');

        RouteGroup::root()->group($prefix, static fn(): null => null);
    }

    public function testRejectsBadMethodsAndEmptyNames(): void
    {
        try {
            RouteGroup::root()->map(['GE T'], '/x', null);
            self::fail('expected an exception');
        } catch (RouteDefinitionException $e) {
            self::assertStringContainsString('"GE T" is not an HTTP method name', $e->getMessage());
        }
        try {
            RouteGroup::root()->map([], '/x', null);
            self::fail('expected an exception');
        } catch (RouteDefinitionException $e) {
            self::assertStringContainsString('has no HTTP methods', $e->getMessage());
        }
        $this->expectExceptionMessage('must not be empty');
        RouteGroup::root()->get('/x', null)->name('');
    }

    public function testRoutesFromAttributes(): void
    {
        $routes = RouteGroup::root();
        $routes->fromClass(ArticleController::class);

        self::assertSame([
            'GET /articles ("articles")' => '/articles',
            'GET /articles/{id:\d+} ("article")' => '/articles/{id:\d+}',
            'PUT|PATCH /articles/{id:\d+}' => '/articles/{id:\d+}',
            'POST /articles/{id:\d+}/edit' => '/articles/{id:\d+}/edit',
        ], self::declared($routes));
        self::assertSame([ArticleController::class, 'show'], $routes->routes->all()[1]->handler);
    }

    public function testAttributeRoutesInsideAGroupGetItsPrefix(): void
    {
        $routes = RouteGroup::root();
        $routes->group('/api', static fn(RouteGroup $api): RouteGroup => $api->fromClass(ArticleController::class));

        self::assertSame('/api/articles/{id:\d+}', $routes->routes->all()[1]->pattern->pattern);
    }

    /** @return iterable<string, array{string, string}> */
    public static function badClasses(): iterable
    {
        yield 'private method' => [PrivateRouteController::class, 'PrivateRouteController::secret() has #[Route] but is not public'];
        yield 'no routes' => [NoRoutesController::class, 'has no public method with #[Route]'];
        yield 'no class' => ['Nope\\Missing', 'no such class'];
    }

    #[DataProvider('badClasses')]
    public function testRejectsUnusableControllerClasses(string $class, string $message): void
    {
        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage($message);

        /** @var class-string $class */
        RouteGroup::root()->fromClass($class);
    }

    public function testNoRoutesAfterFreeze(): void
    {
        $routes = RouteGroup::root();
        $routes->routes->freeze();

        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage('after the routes were compiled');
        $routes->get('/late', null);
    }
}
