<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\ChunkedEncoder;
use Nexus\Http\Parser\RequestParser;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ResponseSerializerTest extends TestCase
{
    private const DATE = 'Sun, 06 Nov 1994 08:49:37 GMT';

    /** @return iterable<string, array{Response, bool, bool, bool, string, string}> */
    public static function responses(): iterable
    {
        $hello = Response::text('hello');
        yield 'keep-alive' => [$hello, true, false, false, '1.1',
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " . self::DATE . "\r\nContent-Length: 5\r\n\r\nhello"];
        yield 'close' => [$hello, false, false, false, '1.1',
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " . self::DATE . "\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"];
        yield 'HEAD keeps the GET length' => [$hello, true, true, false, '1.1',
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " . self::DATE . "\r\nContent-Length: 5\r\n\r\n"];
        yield 'HTTP/1.0 keep-alive is announced' => [$hello, true, false, false, '1.0',
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " . self::DATE . "\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello"];
        yield '204 has no length' => [Response::empty(), true, false, false, '1.1',
            "HTTP/1.1 204 No Content\r\nDate: " . self::DATE . "\r\n\r\n"];
        yield '304 has no body' => [new Response(304, ['ETag' => '"x"'], 'ignored'), true, false, false, '1.1',
            "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nDate: " . self::DATE . "\r\n\r\n"];
        yield 'empty 200 says length 0' => [new Response(), true, false, false, '1.1',
            "HTTP/1.1 200 OK\r\nDate: " . self::DATE . "\r\nContent-Length: 0\r\n\r\n"];
        yield 'framing headers are ours, repeated and Date headers are kept' => [
            new Response(404, ['content-length' => '99', 'Transfer-Encoding' => 'gzip', 'Connection' => 'x', 'Set-Cookie' => ['a=1', 'b=2'], 'date' => 'custom'], 'nope'),
            true, false, false, '1.1',
            "HTTP/1.1 404 Not Found\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\ndate: custom\r\nContent-Length: 4\r\n\r\nnope"];
        yield 'unregistered status' => [new Response(299), true, false, false, '1.1',
            "HTTP/1.1 299 \r\nDate: " . self::DATE . "\r\nContent-Length: 0\r\n\r\n"];
        yield 'chunked with a first chunk' => [$hello, true, false, true, '1.1',
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " . self::DATE . "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"];
        yield 'chunked HEAD' => [$hello, false, true, true, '1.1',
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " . self::DATE . "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"];
    }

    #[DataProvider('responses')]
    public function testSerializes(Response $response, bool $keepAlive, bool $head, bool $chunked, string $version, string $expected): void
    {
        self::assertSame($expected, ResponseSerializer::serialize($response, $keepAlive, self::DATE, $head, $chunked, $version));
    }

    public function testChunkedIsRefusedForHttp10Clients(): void
    {
        $this->expectException(\LogicException::class);
        ResponseSerializer::serialize(Response::text('x'), true, self::DATE, chunked: true, protocolVersion: '1.0');
    }

    public function testContinueConstant(): void
    {
        self::assertSame("HTTP/1.1 100 Continue\r\n\r\n", ResponseSerializer::CONTINUE);
    }

    public function testChunkedResponseRoundTripsThroughTheRequestParsersBodyDecoder(): void
    {
        $encoder = new ChunkedEncoder();
        $body = $encoder->chunk('Hello, ') . $encoder->chunk('') . $encoder->chunk(str_repeat('w', 300)) . $encoder->end(['X-Sum' => 'abc']);

        // The request parser decodes the same framing, so a chunked request made from it must parse.
        $parser = new RequestParser();
        $parser->feed("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" . $body);
        self::assertSame('Hello, ' . str_repeat('w', 300), $parser->next()?->body());
    }
}
