<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing;

use Nexus\Http\Routing\RouteDefinitionException;
use Nexus\Http\Routing\RouteGroup;
use Nexus\Http\Routing\UrlGenerationException;
use Nexus\Http\Routing\UrlGenerator;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class UrlGeneratorTest extends TestCase
{
    private static function urls(): UrlGenerator
    {
        $routes = RouteGroup::root();
        $noop = static fn(): string => '';
        $routes->get('/hello/{name}', $noop)->name('hello');
        $routes->get('/users/{id:\d+}', $noop)->name('user');
        $routes->get('/files/{path:.+}', $noop)->name('file');
        $routes->get('/about', $noop)->name('about');
        $routes->get('/docs/{name}.{ext:html|pdf}', $noop)->name('doc');
        $routes->get('/unnamed', $noop);

        return UrlGenerator::fromRoutes($routes->routes->all());
    }

    /**
     * @return iterable<string, array{string, array<string, scalar>, string}>
     */
    public static function urlCases(): iterable
    {
        yield 'plain' => ['hello', ['name' => 'Ada'], '/hello/Ada'];
        yield 'space and slash encoded' => ['hello', ['name' => 'Ada L/x'], '/hello/Ada%20L%2Fx'];
        yield 'unicode' => ['hello', ['name' => 'café'], '/hello/caf%C3%A9'];
        yield 'sub-delims kept' => ['hello', ['name' => 'a:b@c'], '/hello/a:b@c'];
        yield 'int' => ['user', ['id' => 42], '/users/42'];
        yield 'params within a segment' => ['doc', ['name' => 'a guide', 'ext' => 'pdf'], '/docs/a%20guide.pdf'];
        yield 'rest keeps slashes' => ['file', ['path' => 'a b/c.txt'], '/files/a%20b/c.txt'];
        yield 'extra params become the query' => ['about', ['page' => 2, 'q' => 'a b'], '/about?page=2&q=a%20b'];
    }

    /** @param array<string, scalar> $params */
    #[DataProvider('urlCases')]
    public function testBuildsUrls(string $name, array $params, string $expected): void
    {
        self::assertSame($expected, self::urls()->url($name, $params));
    }

    /** @return iterable<string, array{string, array<string, scalar>, string}> */
    public static function badUrls(): iterable
    {
        yield 'unknown name' => ['nope', [], 'No route is named "nope"; known names: hello, user, file, about, doc'];
        yield 'missing param' => ['hello', [], 'needs the parameter(s) name'];
        yield 'constraint broken' => ['user', ['id' => 'abc'], 'parameter "id" = "abc" does not match \d+'];
        yield 'empty plain param' => ['hello', ['name' => ''], 'does not match a non-empty segment'];
        yield 'empty rest' => ['file', ['path' => ''], 'must not be empty'];
        yield 'constraint broken within a segment' => ['doc', ['name' => 'a', 'ext' => 'exe'], 'parameter "ext" = "exe" does not match html|pdf'];
    }

    /** @param array<string, scalar> $params */
    #[DataProvider('badUrls')]
    public function testRejectsBadInput(string $name, array $params, string $message): void
    {
        $this->expectException(UrlGenerationException::class);
        $this->expectExceptionMessage($message);

        self::urls()->url($name, $params);
    }

    public function testDuplicateNamesAreRejected(): void
    {
        $routes = RouteGroup::root();
        $routes->get('/a', static fn(): null => null)->name('x');
        $routes->post('/b', static fn(): null => null)->name('x');

        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage('Route name "x" is used twice, by GET /a ("x") and POST /b ("x")');

        UrlGenerator::fromRoutes($routes->routes->all());
    }
}
