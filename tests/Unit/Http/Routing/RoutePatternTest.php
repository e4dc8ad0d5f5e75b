<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Routing;

use Nexus\Http\Routing\RouteDefinitionException;
use Nexus\Http\Routing\RoutePattern;
use Nexus\Http\Routing\SegmentKind;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RoutePatternTest extends TestCase
{
    public function testParsesLiteralsParamsConstraintsAndRest(): void
    {
        $pattern = RoutePattern::parse('/users/{id:\d{1,4}}/{slug}/files/{path:.+}');

        self::assertSame(['id', 'slug', 'path'], $pattern->names);
        $kinds = array_map(static fn($s): SegmentKind => $s->kind, $pattern->segments);
        self::assertSame([SegmentKind::Literal, SegmentKind::Param, SegmentKind::Param, SegmentKind::Literal, SegmentKind::Rest], $kinds);
        self::assertSame('\d{1,4}', $pattern->segments[1]->source);
        self::assertNull($pattern->segments[2]->regex, '{slug} must not compile a regex');
        self::assertFalse($pattern->isStatic());
        self::assertTrue(RoutePattern::parse('/a/b')->isStatic());
    }

    public function testRootAndTrailingSlashAreDistinctSegments(): void
    {
        self::assertCount(1, RoutePattern::parse('/')->segments);
        self::assertSame('', RoutePattern::parse('/')->segments[0]->value);
        self::assertCount(2, RoutePattern::parse('/users/')->segments);
    }

    public function testParametersMayShareASegmentWithText(): void
    {
        $pattern = RoutePattern::parse('/files/{name}.{ext:[a-z]+}/v{version:\d+}');

        self::assertSame(['name', 'ext', 'version'], $pattern->names);
        self::assertFalse($pattern->isStatic());
        self::assertSame(SegmentKind::Mixed, $pattern->segments[1]->kind);
        self::assertSame('{name}.{ext:[a-z]+}', $pattern->segments[1]->value);
        self::assertSame(SegmentKind::Mixed, $pattern->segments[2]->kind);
        self::assertSame(
            RoutePattern::parse('/files/{a}.{b:[a-z]+}/v{c:\d+}')->shape(),
            $pattern->shape(),
            'names do not change the shape',
        );
        self::assertNotSame(RoutePattern::parse('/files/{a}-{b}')->shape(), RoutePattern::parse('/files/{a}.{b}')->shape());
    }

    public function testShapeIgnoresParameterNames(): void
    {
        self::assertSame(RoutePattern::parse('/u/{id}')->shape(), RoutePattern::parse('/u/{name}')->shape());
        self::assertNotSame(RoutePattern::parse('/u/{id}')->shape(), RoutePattern::parse('/u/{id:\d+}')->shape());
        self::assertNotSame(RoutePattern::parse('/u/{id}')->shape(), RoutePattern::parse('/u/id')->shape());
    }

    /** @return iterable<string, array{string, string}> */
    public static function invalidPatterns(): iterable
    {
        yield 'no leading slash' => ['users', 'must start with "/"'];
        yield 'empty' => ['', 'must start with "/"'];
        yield 'two params side by side' => ['/{a}{b}', 'put text between them'];
        yield 'rest inside text' => ['/files/{path:.+}.txt', 'cannot take the rest of the path'];
        yield 'stray closing brace' => ['/a}b', 'unmatched "}"'];
        yield 'duplicate name in text' => ['/{id}/{id}.json', 'twice'];
        yield 'unclosed brace' => ['/users/{id', 'never closed'];
        yield 'bad name' => ['/users/{1id}', 'must be a PHP identifier'];
        yield 'duplicate name' => ['/{id}/{id}', 'twice'];
        yield 'rest not last' => ['/{path:.+}/edit', 'must be the last segment'];
        yield 'invalid regex' => ['/{id:[0-9}', 'not a valid regex'];
        yield 'empty constraint' => ['/{id:}', 'empty constraint'];
    }

    #[DataProvider('invalidPatterns')]
    public function testRejectsInvalidPatternsWithAClearMessage(string $pattern, string $message): void
    {
        $this->expectException(RouteDefinitionException::class);
        $this->expectExceptionMessage($message);

        RoutePattern::parse($pattern);
    }
}
