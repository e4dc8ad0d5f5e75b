<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Parser;

use Nexus\Http\Parser\HttpParseException;
use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Parser\RequestParser;
use Nexus\Http\Request;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RequestParserTest extends TestCase
{
    private const CHUNKED = "POST /upload HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
        . "5;name=value;flag\r\nhello\r\n"
        . "7 ; ext=\"quoted\"\r\n, world\r\n"
        . "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n";

    public function testParsesASimpleGet(): void
    {
        $request = self::parseOne("GET /users/42?sort=asc&tags[]=a HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Multi: a\r\nx-multi: b\r\n\r\n");

        self::assertSame('GET', $request->method());
        self::assertSame('/users/42?sort=asc&tags[]=a', $request->target());
        self::assertSame('/users/42', $request->path());
        self::assertSame('sort=asc&tags[]=a', $request->query());
        self::assertSame(['sort' => 'asc', 'tags' => ['a']], $request->queryParams());
        self::assertSame('1.1', $request->protocolVersion());
        self::assertSame('example.com', $request->header('HOST'));
        self::assertSame('a, b', $request->header('x-multi'));
        self::assertSame(['host' => ['example.com'], 'accept' => ['*/*'], 'x-multi' => ['a', 'b']], $request->headers());
        self::assertTrue($request->hasHeader('Accept'));
        self::assertFalse($request->hasHeader('Content-Length'));
        self::assertNull($request->header('missing'));
        self::assertSame('', $request->body());
        self::assertTrue($request->keepAlive());
        self::assertSame([], $request->attributes);
    }

    public function testKeepsMethodCaseAndRawPercentEncodedPath(): void
    {
        $request = self::parseOne("get /a%20b/%2F HTTP/1.1\r\nHost: h\r\n\r\n");

        self::assertSame('get', $request->method());
        self::assertSame('/a%20b/%2F', $request->path());
    }

    public function testTrimsOptionalWhitespaceAroundFieldValues(): void
    {
        $request = self::parseOne("GET / HTTP/1.1\r\nHost:h\r\nX-A: \t padded \t\r\nX-Empty:\r\n\r\n");

        self::assertSame('h', $request->header('host'));
        self::assertSame('padded', $request->header('x-a'));
        self::assertSame('', $request->header('x-empty'));
    }

    public function testReturnsNullUntilTheHeadIsComplete(): void
    {
        $parser = new RequestParser();
        $parser->feed("GET / HTTP/1.1\r\nHost: h\r\n");
        self::assertNull($parser->next());
        $parser->feed("\r\n");
        self::assertInstanceOf(Request::class, $parser->next());
        self::assertNull($parser->next());
    }

    public function testSaysWhenTheHeadIsCompleteAndTheBodyIsStillArriving(): void
    {
        $parser = new RequestParser();
        $parser->feed("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n");
        self::assertNull($parser->next());
        self::assertFalse($parser->isReadingBody(), 'the head is not complete');
        $parser->feed("\r\nab");
        self::assertNull($parser->next());
        self::assertTrue($parser->isReadingBody());
        $parser->feed('cd');
        self::assertInstanceOf(Request::class, $parser->next());
        self::assertFalse($parser->isReadingBody());
    }

    public function testReadsAContentLengthBody(): void
    {
        $parser = new RequestParser();
        $parser->feed("POST /submit HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello");
        self::assertNull($parser->next());
        $parser->feed(' world');

        $request = $parser->next();
        self::assertNotNull($request);
        self::assertSame('hello world', $request->body());
        self::assertSame(0, $parser->bufferedBytes());
    }

    public function testPipelinedRequestsComeOutInOrder(): void
    {
        $parser = new RequestParser();
        $parser->feed(
            "POST /one HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            . "GET /two HTTP/1.1\r\nHost: h\r\n\r\n"
            . "PUT /three HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
            . 'GET /fo',
        );

        $seen = [];
        while (($request = $parser->next()) !== null) {
            $seen[] = [$request->method(), $request->path(), $request->body()];
        }
        self::assertSame([['POST', '/one', 'abc'], ['GET', '/two', ''], ['PUT', '/three', 'xy']], $seen);

        $parser->feed("ur HTTP/1.1\r\nHost: h\r\n\r\n");
        self::assertSame('/four', $parser->next()?->path());
    }

    public function testReadsAChunkedBodyWithExtensionsAndDropsTrailers(): void
    {
        $request = self::parseOne(self::CHUNKED);

        self::assertSame('hello, world', $request->body());
        self::assertFalse($request->hasHeader('x-checksum'));
        self::assertSame('chunked', $request->header('transfer-encoding'));
    }

    public function testAcceptsUpperCaseHexAndLeadingZerosInChunkSizes(): void
    {
        $body = str_repeat('z', 26);
        $request = self::parseOne("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n001A\r\n{$body}\r\n000\r\n\r\n");

        self::assertSame($body, $request->body());
    }

    /** @return iterable<string, array{string}> */
    public static function wholeRequests(): iterable
    {
        yield 'simple get' => ["GET /x?y=1 HTTP/1.1\r\nHost: h\r\nUser-Agent: t\r\n\r\n"];
        yield 'content-length' => ["POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789"];
        yield 'chunked with extensions and trailers' => [self::CHUNKED];
        yield 'leading empty line' => ["\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"];
        yield 'pipelined' => ["GET /a HTTP/1.1\r\nHost: h\r\n\r\n" . self::CHUNKED . "GET /b HTTP/1.0\r\n\r\n"];
    }

    #[DataProvider('wholeRequests')]
    public function testByteByByteFeedingMatchesOneFeed(string $bytes): void
    {
        $whole = new RequestParser();
        $whole->feed($bytes);
        $expected = self::drain($whole);

        $trickle = new RequestParser();
        $got = [];
        for ($i = 0, $n = \strlen($bytes); $i < $n; ++$i) {
            $trickle->feed($bytes[$i]);
            array_push($got, ...self::drain($trickle));
        }

        self::assertNotSame([], $expected);
        self::assertSame($expected, $got);
    }

    public function testSignalsContinueOnceForAPendingBody(): void
    {
        $parser = new RequestParser();
        $parser->feed("PUT /big HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");

        self::assertFalse($parser->needsContinue());
        self::assertNull($parser->next());
        self::assertTrue($parser->needsContinue());
        self::assertFalse($parser->needsContinue());
        self::assertNull($parser->next());
        self::assertFalse($parser->needsContinue());

        $parser->feed('data');
        self::assertSame('data', $parser->next()?->body());
        self::assertFalse($parser->needsContinue());
    }

    public function testDoesNotSignalContinueWhenTheBodyArrivedWithTheHead(): void
    {
        $parser = new RequestParser();
        $parser->feed("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nok");

        self::assertSame('ok', $parser->next()?->body());
        self::assertFalse($parser->needsContinue());
    }

    public function testSignalsContinueForChunkedBodies(): void
    {
        $parser = new RequestParser();
        $parser->feed("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n");

        self::assertNull($parser->next());
        self::assertTrue($parser->needsContinue());
    }

    public function testIgnoresContinueFromHttp10ClientsAndForEmptyBodies(): void
    {
        $parser = new RequestParser();
        $parser->feed("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
        self::assertNull($parser->next());
        self::assertFalse($parser->needsContinue());

        $parser = new RequestParser();
        $parser->feed("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n");
        self::assertNotNull($parser->next());
        self::assertFalse($parser->needsContinue());
    }

    /** @return iterable<string, array{string, bool}> */
    public static function keepAliveCases(): iterable
    {
        yield '1.1 default' => ["GET / HTTP/1.1\r\nHost: h\r\n\r\n", true];
        yield '1.1 close' => ["GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false];
        yield '1.1 Close in a list' => ["GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, Close\r\n\r\n", false];
        yield '1.1 keep-alive' => ["GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n\r\n", true];
        yield '1.0 default' => ["GET / HTTP/1.0\r\n\r\n", false];
        yield '1.0 keep-alive' => ["GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true];
        yield '1.0 keep-alive and close' => ["GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false];
        yield '1.0 with host' => ["GET / HTTP/1.0\r\nHost: h\r\n\r\n", false];
    }

    #[DataProvider('keepAliveCases')]
    public function testKeepAliveFollowsRfc9112(string $bytes, bool $keepAlive): void
    {
        $request = self::parseOne($bytes);

        self::assertSame($keepAlive, $request->keepAlive());
        $rebuilt = new Request($request->method(), $request->target(), $request->path(), $request->query(), $request->protocolVersion(), $request->headers());
        self::assertSame($keepAlive, $rebuilt->keepAlive(), 'derived without the parser');
    }

    public function testAcceptsHigherHttp1MinorVersionsAs11(): void
    {
        self::assertSame('1.1', self::parseOne("GET / HTTP/1.9\r\nHost: h\r\n\r\n")->protocolVersion());
    }

    /** @return iterable<string, array{string, string, string, string}> */
    public static function absoluteForms(): iterable
    {
        yield 'path and query' => ['http://example.com:8080/a/b?c=d', '/a/b', 'c=d', 'example.com:8080'];
        yield 'no path' => ['http://example.com', '/', '', 'example.com'];
        yield 'query only' => ['HTTPS://example.com?x=1', '/', 'x=1', 'example.com'];
        yield 'root' => ['http://[::1]/', '/', '', '[::1]'];
    }

    #[DataProvider('absoluteForms')]
    public function testAcceptsAbsoluteFormAndUsesItsAuthorityAsHost(string $target, string $path, string $query, string $host): void
    {
        $request = self::parseOne("GET {$target} HTTP/1.1\r\nHost: ignored.example\r\n\r\n");

        self::assertSame($target, $request->target());
        self::assertSame($path, $request->path());
        self::assertSame($query, $request->query());
        self::assertSame($host, $request->header('host'));
    }

    public function testAcceptsAsteriskFormForOptions(): void
    {
        $request = self::parseOne("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n");

        self::assertSame('*', $request->target());
        self::assertSame('*', $request->path());
    }

    public function testHeadCacheYieldsDistinctRequestsWithoutLeakingBodiesOrAttributes(): void
    {
        $head = "POST /same HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n";
        $parser = new RequestParser();
        $parser->feed($head . 'one' . $head . 'two');
        $first = $parser->next();
        $second = $parser->next();
        $third = self::parseOne($head . 'six', new RequestParser());

        self::assertNotNull($first);
        self::assertNotNull($second);
        self::assertNotSame($first, $second);
        self::assertNotSame($second, $third);
        self::assertSame(['one', 'two', 'six'], [$first->body(), $second->body(), $third->body()]);
        self::assertSame($first->headers(), $second->headers());
        self::assertSame($first->target(), $third->target());

        $first->attributes['id'] = 1;
        self::assertSame([], $second->attributes);
        self::assertSame([], $third->attributes);
    }

    public function testRequestsWithoutABodyFromACachedHeadShareNothingMutable(): void
    {
        $head = "GET /same?a=1 HTTP/1.1\r\nHost: h\r\n\r\n";
        $parser = new RequestParser();
        $parser->feed($head . $head);
        $first = $parser->next();
        self::assertNotNull($first);
        $first->attributes['id'] = 1;
        $first->routeTemplate = '/same';
        self::assertSame(['a' => '1'], $first->queryParams());
        $second = $parser->next();
        $third = self::parseOne($head, new RequestParser());

        foreach ([$second, $third] as $request) {
            self::assertNotNull($request);
            self::assertNotSame($first, $request);
            self::assertSame([], $request->attributes);
            self::assertNull($request->routeTemplate);
            self::assertNull($request->connection);
            self::assertSame(['a' => '1'], $request->queryParams());
            self::assertSame('', $request->body());
            self::assertTrue($request->keepAlive());
        }
    }

    public function testLastRequestBytesCountsEachRequestAsReceived(): void
    {
        $get = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
        $post = "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello";
        $chunked = "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
        $stream = $get . $post . "\r\n" . $get . $chunked . $get;
        $expected = [\strlen($get), \strlen($post), 2 + \strlen($get), \strlen($chunked), \strlen($get)];
        foreach ([1, 3, 7, \strlen($stream)] as $size) {
            $parser = new RequestParser();
            $counted = [];
            foreach (str_split($stream, $size) as $piece) {
                $parser->feed($piece);
                while ($parser->next() !== null) {
                    $counted[] = $parser->lastRequestBytes;
                }
            }
            self::assertSame($expected, $counted, "fed in pieces of {$size} bytes");
            self::assertSame(0, $parser->bufferedBytes());
        }
    }

    public function testHeadCacheStillAppliesEachParsersOwnLimits(): void
    {
        $head = "GET /cached HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n";
        self::parseOne($head);

        foreach ([
            [new ParserLimits(maxHeaderCount: 2), 431],
            [new ParserLimits(maxHeaderBytes: 10), 431],
            [new ParserLimits(maxRequestLineLength: 10), 414],
        ] as [$limits, $status]) {
            $parser = new RequestParser($limits);
            $parser->feed($head);
            try {
                $parser->next();
                self::fail('Expected a ' . $status);
            } catch (HttpParseException $e) {
                self::assertSame($status, $e->status);
            }
        }

        $parser = new RequestParser(new ParserLimits(maxBodyBytes: 2));
        $parser->feed("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\n");
        self::parseOne("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc");
        try {
            $parser->next();
            self::fail('Expected a 413');
        } catch (HttpParseException $e) {
            self::assertSame(413, $e->status);
        }
    }

    public function testParserStaysFailedAfterAnError(): void
    {
        $parser = new RequestParser();
        $parser->feed("BAD\r\n\r\n");
        try {
            $parser->next();
            self::fail('Expected a parse error');
        } catch (HttpParseException $first) {
            self::assertSame(400, $first->status);
        }

        $parser->feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        try {
            $parser->next();
            self::fail('Expected the parse error again');
        } catch (HttpParseException $again) {
            self::assertSame($first, $again);
        }
        self::assertSame(0, $parser->bufferedBytes());
    }

    public function testManyRequestsThroughOneParserDoNotAccumulateBuffer(): void
    {
        $parser = new RequestParser();
        for ($i = 0; $i < 200; ++$i) {
            $parser->feed("GET /{$i} HTTP/1.1\r\nHost: h\r\n\r\n");
            self::assertSame('/' . $i, $parser->next()?->path());
            self::assertSame(0, $parser->bufferedBytes());
        }
    }

    private static function parseOne(string $bytes, ?RequestParser $parser = null): Request
    {
        $parser ??= new RequestParser();
        $parser->feed($bytes);
        $request = $parser->next();
        self::assertNotNull($request, 'Expected a complete request');

        return $request;
    }

    /**
     * @return list<array{string, string, string, array<string, list<string>>, string, bool}>
     */
    private static function drain(RequestParser $parser): array
    {
        $out = [];
        while (($r = $parser->next()) !== null) {
            $out[] = [$r->method(), $r->target(), $r->protocolVersion(), $r->headers(), $r->body(), $r->keepAlive()];
        }

        return $out;
    }
}
