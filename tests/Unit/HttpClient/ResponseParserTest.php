<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\HttpClient;

use Nexus\HttpClient\Exception\ConnectionLostException;
use Nexus\HttpClient\Exception\HeadTooLargeException;
use Nexus\HttpClient\Exception\MalformedResponseException;
use Nexus\HttpClient\Internal\ResponseHead;
use Nexus\HttpClient\Internal\ResponseParser;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class ResponseParserTest extends TestCase
{
    /**
     * @return iterable<string, array{string, string, int}>
     */
    public static function responses(): iterable
    {
        yield 'content-length' => ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello", 'hello', ResponseHead::LENGTH];
        yield 'chunked with extension and trailers' => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6 ;e\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n", 'hello world', ResponseHead::CHUNKED];
        yield 'empty chunked' => ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", '', ResponseHead::CHUNKED];
        yield 'no reason phrase' => ["HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", 'ok', ResponseHead::LENGTH];
        yield '204' => ["HTTP/1.1 204 No Content\r\n\r\n", '', ResponseHead::NONE];
        yield '304 with a length' => ["HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n", '', ResponseHead::NONE];
        yield 'interim 100 then 200' => ["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", 'x', ResponseHead::LENGTH];
        yield 'repeated equal lengths' => ["HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok", 'ok', ResponseHead::LENGTH];
    }

    #[DataProvider('responses')]
    public function testParsesWholeAndByteByByte(string $wire, string $body, int $framing): void
    {
        foreach ([max(1, \strlen($wire)), 1, 3, 7] as $step) {
            $parser = new ResponseParser(8192, 100);
            $parser->begin(false);
            $head = null;
            $received = '';
            foreach (str_split($wire, $step) as $bytes) {
                $parser->feed($bytes);
                $head ??= $parser->head();
                if ($head !== null) {
                    while (($piece = $parser->body()) !== null) {
                        $received .= $piece;
                    }
                }
            }
            self::assertNotNull($head, "step {$step}");
            self::assertSame($framing, $head->framing);
            self::assertSame($body, $received, "step {$step}");
            self::assertTrue($parser->isComplete(), "step {$step}");
            self::assertSame(0, $parser->pending());
        }
    }

    public function testHeadersAreLowerCasedAndKeepEveryValue(): void
    {
        $parser = $this->parser("HTTP/1.0 404 Not Found\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nX-Space:   padded \t\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n");
        $head = $parser->head();
        self::assertNotNull($head);
        self::assertSame(404, $head->status);
        self::assertSame('Not Found', $head->reason);
        self::assertSame('1.0', $head->version);
        self::assertSame(['a=1', 'b=2'], $head->headers['set-cookie']);
        self::assertSame(['padded'], $head->headers['x-space']);
        self::assertTrue($head->keepAlive, 'HTTP/1.0 with keep-alive');
    }

    public function testConnectionCloseAndCloseFramedBodiesAreNotKeptAlive(): void
    {
        $head = $this->parser("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")->head();
        self::assertFalse($head?->keepAlive);
        $parser = $this->parser("HTTP/1.1 200 OK\r\n\r\nsome");
        $head = $parser->head();
        self::assertSame(ResponseHead::UNTIL_CLOSE, $head?->framing);
        self::assertFalse($head->keepAlive);
        self::assertSame('some', $parser->body());
        self::assertFalse($parser->isComplete());
        $parser->end();
        self::assertTrue($parser->isComplete());
    }

    public function testAResponseToHeadHasNoBody(): void
    {
        $parser = new ResponseParser(8192, 100);
        $parser->begin(true);
        $parser->feed("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n");
        self::assertSame(ResponseHead::NONE, $parser->head()?->framing);
        self::assertTrue($parser->isComplete());
    }

    public function testTwoResponsesInARowOnOneParser(): void
    {
        $parser = $this->parser("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nb");
        self::assertSame(200, $parser->head()?->status);
        self::assertSame('a', $parser->body());
        self::assertTrue($parser->isComplete());
        self::assertGreaterThan(0, $parser->pending(), 'the next response is already here');
        $parser->begin(false);
        self::assertSame(201, $parser->head()?->status);
        self::assertSame('b', $parser->body());
    }

    public function testABadStatusLineFailsAsSoonAsItsLineEnds(): void
    {
        $parser = new ResponseParser(65536, 100);
        $parser->begin(false);
        $parser->feed("HTTP/1.1 2x0 OK\r\n");
        $this->expectException(MalformedResponseException::class);
        $parser->head();
    }

    public function testTheHeadSizeIsBoundedBeforeItsEndArrives(): void
    {
        $parser = new ResponseParser(1024, 100);
        $parser->begin(false);
        $parser->feed("HTTP/1.1 200 OK\r\nX-Long: " . str_repeat('a', 1100));
        $this->expectException(HeadTooLargeException::class);
        $parser->head();
    }

    public function testTheChunkSizeLineIsBounded(): void
    {
        $parser = $this->parser("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" . str_repeat('0', 5000));
        $parser->head();
        $this->expectException(MalformedResponseException::class);
        $parser->body();
    }

    public function testAnOverlongChunkSizeIsRefused(): void
    {
        $parser = $this->parser("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n");
        $parser->head();
        $this->expectExceptionMessage('Invalid chunk size');
        $parser->body();
    }

    public function testEofMidBodyIsAConnectionLoss(): void
    {
        $parser = $this->parser("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
        $parser->head();
        self::assertSame('abc', $parser->body());
        $this->expectException(ConnectionLostException::class);
        $this->expectExceptionMessage('7 bytes short');
        $parser->end();
    }

    public function testBodyPiecesAreHandedOutWithoutCollecting(): void
    {
        $parser = $this->parser("HTTP/1.1 200 OK\r\nContent-Length: 300000\r\n\r\n");
        $parser->head();
        $total = 0;
        for ($i = 0; $i < 30; ++$i) {
            $parser->feed(str_repeat('x', 10_000));
            $piece = $parser->body();
            self::assertSame(10_000, \strlen((string) $piece));
            self::assertSame(0, $parser->pending(), 'nothing kept behind');
            $total += \strlen((string) $piece);
        }
        self::assertSame(300_000, $total);
        self::assertTrue($parser->isComplete());
    }

    private function parser(string $wire): ResponseParser
    {
        $parser = new ResponseParser(65536, 100);
        $parser->begin(false);
        $parser->feed($wire);

        return $parser;
    }
}
