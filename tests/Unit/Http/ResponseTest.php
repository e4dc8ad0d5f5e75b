<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\Response;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ResponseTest extends TestCase
{
    public function testStaticConstructorsSetContentTypeStatusAndBody(): void
    {
        $text = Response::text('hi', 201, ['X-A' => 'b']);
        self::assertSame([201, ['Content-Type' => 'text/plain; charset=utf-8', 'X-A' => 'b'], 'hi'], [$text->status, $text->headers, $text->body]);

        $html = Response::html('<p>x</p>');
        self::assertSame('text/html; charset=utf-8', $html->header('content-type'));
        self::assertSame(200, $html->status);

        $json = Response::json(['url' => 'http://x/é', 'n' => 1], 202);
        self::assertSame('{"url":"http://x/é","n":1}', $json->body);
        self::assertSame('application/json', $json->header('Content-Type'));
        self::assertSame(202, $json->status);

        $empty = Response::empty();
        self::assertSame([204, [], ''], [$empty->status, $empty->headers, $empty->body]);
    }

    public function testJsonThrowsOnUnencodableData(): void
    {
        $this->expectException(\JsonException::class);
        Response::json(\NAN);
    }

    public function testWithersReturnModifiedCopies(): void
    {
        $original = Response::text('a', 200, ['X-Tag' => 'one']);
        $changed = $original->withHeader('x-tag', ['two', 'three'])->withStatus(404)->withBody('b');

        self::assertSame('one', $original->header('X-Tag'));
        self::assertSame(['Content-Type' => 'text/plain; charset=utf-8', 'x-tag' => ['two', 'three']], $changed->headers);
        self::assertSame('two, three', $changed->header('X-TAG'));
        self::assertSame([404, 'b'], [$changed->status, $changed->body]);
        self::assertNull($changed->header('missing'));
    }

    /** @return iterable<string, array{int, array<string, string|list<string>>}> */
    public static function invalidResponses(): iterable
    {
        yield 'status too low' => [99, []];
        yield 'status too high' => [600, []];
        yield 'name with space' => [200, ['X A' => 'b']];
        yield 'empty name' => [200, ['' => 'b']];
        yield 'CRLF in value' => [200, ['X-A' => "b\r\nSet-Cookie: evil"]];
        yield 'LF in list value' => [200, ['X-A' => ['ok', "b\nc"]]];
        yield 'NUL in value' => [200, ['X-A' => "b\0"]];
    }

    /** @param array<string, string|list<string>> $headers */
    #[DataProvider('invalidResponses')]
    public function testRejectsInvalidStatusAndHeaders(int $status, array $headers): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new Response($status, $headers);
    }
}
