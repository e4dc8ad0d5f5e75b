<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Parser;

use Nexus\Http\Parser\HttpParseException;
use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Parser\RequestParser;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RequestParserRejectionTest extends TestCase
{
    private const GET = "GET / HTTP/1.1\r\nHost: h\r\n";

    /** @return iterable<string, array{string, int}> */
    public static function malformedRequests(): iterable
    {
        // Request line.
        yield 'two parts' => ["GET /\r\nHost: h\r\n\r\n", 400];
        yield 'four parts' => ["GET / x HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'double space' => ["GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'tab separator' => ["GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'trailing space' => ["GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400];
        yield 'empty method' => [" / HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'method with slash' => ["GE/T / HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'method with brace' => ["G{T / HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'method with 8-bit byte' => ["G\xC3\xA9T / HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'lower-case version' => ["GET / http/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'version without minor' => ["GET / HTTP/1\r\nHost: h\r\n\r\n", 400];
        yield 'version with letters' => ["GET / HTTP/1.x\r\nHost: h\r\n\r\n", 400];
        yield 'version two digits' => ["GET / HTTP/11.1\r\nHost: h\r\n\r\n", 400];
        yield 'NUL in target' => ["GET /a\0b HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'DEL in target' => ["GET /a\x7Fb HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'bare CR in request line' => ["GET /a\rb HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'fragment in target' => ["GET /a#frag HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'relative target' => ["GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'asterisk with GET' => ["GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'authority form with GET' => ["GET example.com:443 HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'absolute form other scheme' => ["GET ftp://example.com/ HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'absolute form without host' => ["GET http:///path HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'absolute form with userinfo' => ["GET http://u:p@example.com/ HTTP/1.1\r\nHost: h\r\n\r\n", 400];
        yield 'empty request line' => [" \r\nHost: h\r\n\r\n", 400];

        // Versions and methods not served.
        yield 'HTTP/2.0' => ["GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505];
        yield 'HTTP/3.0' => ["GET / HTTP/3.0\r\nHost: h\r\n\r\n", 505];
        yield 'HTTP/0.9' => ["GET / HTTP/0.9\r\n\r\n", 505];
        yield 'CONNECT' => ["CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 501];

        // Line endings.
        yield 'bare LF everywhere' => ["GET / HTTP/1.1\nHost: h\n\n", 400];
        yield 'bare LF after request line' => ["GET / HTTP/1.1\nHost: h\r\n\r\n", 400];
        yield 'bare LF inside header block' => ["GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n", 400];
        yield 'bare LF inside value' => ["GET / HTTP/1.1\r\nHost: h\r\nX: a\nb\r\n\r\n", 400];
        yield 'bare CR inside value' => ["GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400];
        yield 'LF then CRLF end' => ["GET / HTTP/1.1\r\nHost: h\n\r\n", 400];

        // Header fields.
        yield 'obs-fold with space' => [self::GET . "X: a\r\n  continued\r\n\r\n", 400];
        yield 'obs-fold with tab' => [self::GET . "X: a\r\n\tcontinued: x\r\n\r\n", 400];
        yield 'first header folded' => ["GET / HTTP/1.1\r\n Host: h\r\n\r\n", 400];
        yield 'space before colon' => [self::GET . "X-A : b\r\n\r\n", 400];
        yield 'tab before colon' => [self::GET . "X-A\t: b\r\n\r\n", 400];
        yield 'no colon' => [self::GET . "X-A b\r\n\r\n", 400];
        yield 'empty name' => [self::GET . ": b\r\n\r\n", 400];
        yield 'name with slash' => [self::GET . "X/A: b\r\n\r\n", 400];
        yield 'name with 8-bit byte' => [self::GET . "X\xFFA: b\r\n\r\n", 400];
        yield 'NUL in value' => [self::GET . "X: a\0b\r\n\r\n", 400];
        yield 'ESC in value' => [self::GET . "X: a\x1Bb\r\n\r\n", 400];
        yield 'DEL in value' => [self::GET . "X: a\x7F\r\n\r\n", 400];
        yield 'unsupported expectation' => [self::GET . "Expect: something\r\n\r\n", 417];

        // Host.
        yield 'missing host on 1.1' => ["GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400];
        yield 'two hosts' => [self::GET . "Host: other\r\n\r\n", 400];
        yield 'two hosts on 1.0' => ["GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", 400];

        // Framing and smuggling shapes.
        yield 'CL and TE' => [self::GET . "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400];
        yield 'TE and CL' => [self::GET . "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400];
        yield 'repeated CL same value' => [self::GET . "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400];
        yield 'repeated CL different value' => [self::GET . "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400];
        yield 'CL list' => [self::GET . "Content-Length: 5, 5\r\n\r\nhello", 400];
        yield 'CL plus sign' => [self::GET . "Content-Length: +5\r\n\r\nhello", 400];
        yield 'CL minus sign' => [self::GET . "Content-Length: -1\r\n\r\n", 400];
        yield 'CL hex' => [self::GET . "Content-Length: 0x5\r\n\r\nhello", 400];
        yield 'CL empty' => [self::GET . "Content-Length:\r\n\r\n", 400];
        yield 'CL inner space' => [self::GET . "Content-Length: 1 2\r\n\r\n", 400];
        yield 'CL too many digits' => [self::GET . "Content-Length: 0000000000000000001\r\n\r\n", 400];
        yield 'CL overflow' => [self::GET . "Content-Length: 99999999999999999999\r\n\r\n", 400];
        yield 'TE gzip only' => [self::GET . "Transfer-Encoding: gzip\r\n\r\n", 400];
        yield 'TE chunked not last' => [self::GET . "Transfer-Encoding: chunked, gzip\r\n\r\n", 400];
        yield 'TE chunked twice' => [self::GET . "Transfer-Encoding: chunked, chunked\r\n\r\n", 400];
        yield 'TE chunked twice in two fields' => [self::GET . "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400];
        yield 'TE empty' => [self::GET . "Transfer-Encoding:\r\n\r\n", 400];
        yield 'TE chunked with parameter' => [self::GET . "Transfer-Encoding: chunked;q=1\r\n\r\n", 400];
        yield 'TE gzip then chunked' => [self::GET . "Transfer-Encoding: gzip, chunked\r\n\r\n", 501];
        yield 'TE in two fields, gzip first' => [self::GET . "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", 501];
        yield 'TE on HTTP/1.0' => ["POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400];

        // Chunked body.
        $te = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
        yield 'chunk size not hex' => [$te . "xyz\r\n", 400];
        yield 'chunk size empty' => [$te . "\r\n", 400];
        yield 'chunk size with sign' => [$te . "+5\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size 0x prefix' => [$te . "0x5\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size overflow' => [$te . "10000000000000000\r\n", 400];
        yield 'chunk size trailing space without extension' => [$te . "5 \r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size bare LF' => [$te . "5\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk extension with NUL' => [$te . "5;a=\0\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk extension too long' => [$te . '5;' . str_repeat('x', 2000) . "\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk extension never ends' => [$te . '5;' . str_repeat('x', 2000), 400];
        yield 'chunk data longer than size' => [$te . "3\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk data missing CR' => [$te . "5\r\nhello\n0\r\n\r\n", 400];
        yield 'chunk data followed by one wrong byte' => [$te . "5\r\nhellox", 400];
        yield 'trailer folded' => [$te . "0\r\nX: a\r\n b\r\n\r\n", 400];
        yield 'trailer without colon' => [$te . "0\r\nnonsense\r\n\r\n", 400];
        yield 'trailer bare LF' => [$te . "0\r\nX: a\n\n", 400];
        yield 'trailer control char' => [$te . "0\r\nX: \x01\r\n\r\n", 400];
    }

    #[DataProvider('malformedRequests')]
    public function testRejectsMalformedRequests(string $bytes, int $status): void
    {
        $parser = new RequestParser();
        $parser->feed($bytes);

        self::assertRejected($parser, $status);
    }

    #[DataProvider('malformedRequests')]
    public function testRejectsMalformedRequestsFedByteByByte(string $bytes, int $status): void
    {
        $parser = new RequestParser();
        try {
            for ($i = 0, $n = \strlen($bytes); $i < $n; ++$i) {
                $parser->feed($bytes[$i]);
                while ($parser->next() !== null) {
                    // A valid request before the broken part is fine; keep going.
                }
            }
            self::fail(\sprintf('Expected HTTP %d, the parser accepted the bytes.', $status));
        } catch (HttpParseException $e) {
            self::assertSame($status, $e->status, $e->getMessage());
        }
    }

    /** @return iterable<string, array{string, int, ParserLimits}> */
    public static function oversizedRequests(): iterable
    {
        $defaults = new ParserLimits();
        $longPath = '/' . str_repeat('a', 8200);
        yield 'long URI, whole head' => ["GET {$longPath} HTTP/1.1\r\nHost: h\r\n\r\n", 414, $defaults];
        yield 'long URI, head incomplete' => ["GET {$longPath}", 414, $defaults];
        yield 'long URI, line complete, head incomplete' => ["GET {$longPath} HTTP/1.1\r\nHost: h\r\n", 414, $defaults];
        yield 'URI within a small limit' => ["GET /abcdefghijk HTTP/1.1\r\nHost: h\r\n\r\n", 414, new ParserLimits(maxRequestLineLength: 16)];

        $bigHeader = 'X-Big: ' . str_repeat('b', 17000) . "\r\n";
        yield 'header block too large, whole head' => [self::GET . $bigHeader . "\r\n", 431, $defaults];
        yield 'header block too large, head incomplete' => [self::GET . $bigHeader, 431, $defaults];
        yield 'many small headers over the byte limit' => [self::GET . str_repeat("X-A: 0123456789\r\n", 60) . "\r\n", 431, new ParserLimits(maxHeaderBytes: 512, maxHeaderCount: 1000)];

        $headers = '';
        for ($i = 0; $i < 100; ++$i) {
            $headers .= "X-{$i}: v\r\n";
        }
        yield 'header count over 100' => [self::GET . $headers . "\r\n", 431, $defaults];
        yield 'header count over a small limit' => [self::GET . "A: 1\r\nB: 2\r\n\r\n", 431, new ParserLimits(maxHeaderCount: 2)];

        $te = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
        yield 'trailers too many' => [$te . "0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", 431, new ParserLimits(maxHeaderCount: 2)];
        yield 'trailers too large' => [$te . "0\r\nA: " . str_repeat('t', 100) . "\r\n\r\n", 431, new ParserLimits(maxHeaderBytes: 64)];
        yield 'trailer never ends' => [$te . "0\r\nA: " . str_repeat('t', 100), 431, new ParserLimits(maxHeaderBytes: 64)];

        yield 'declared body too large' => [self::GET . "Content-Length: 8388609\r\n\r\n", 413, $defaults];
        yield 'declared body over a small limit' => [self::GET . "Content-Length: 11\r\n\r\n", 413, new ParserLimits(maxBodyBytes: 10)];
        yield 'chunked body too large in one chunk' => [$te . "b\r\n", 413, new ParserLimits(maxBodyBytes: 10)];
        yield 'chunked body too large over chunks' => [$te . "6\r\nabcdef\r\n6\r\n", 413, new ParserLimits(maxBodyBytes: 10)];
        yield 'chunk line over a small limit' => [$te . "5;abcdefgh\r\nhello\r\n0\r\n\r\n", 400, new ParserLimits(maxChunkLineLength: 8)];
    }

    #[DataProvider('oversizedRequests')]
    public function testRejectsOversizedRequests(string $bytes, int $status, ParserLimits $limits): void
    {
        $parser = new RequestParser($limits);
        $parser->feed($bytes);

        self::assertRejected($parser, $status);
    }

    public function testDeclaredBodyTooLargeIsRejectedBeforeAnyBodyByteArrives(): void
    {
        $parser = new RequestParser(new ParserLimits(maxBodyBytes: 1024));
        $parser->feed("PUT /upload HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1025\r\n\r\n");

        self::assertRejected($parser, 413);
        self::assertFalse($parser->needsContinue());
    }

    public function testErrorMessagesSayWhatToFix(): void
    {
        $parser = new RequestParser();
        $parser->feed(self::GET . "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n");
        try {
            $parser->next();
            self::fail('Expected a 400');
        } catch (HttpParseException $e) {
            self::assertSame(400, $e->status);
            self::assertSame(400, $e->getCode());
            self::assertStringContainsString('Content-Length and Transfer-Encoding', $e->getMessage());
        }
    }

    public function testLimitsMustBePositive(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('maxHeaderCount');
        new ParserLimits(maxHeaderCount: 0);
    }

    private static function assertRejected(RequestParser $parser, int $status): void
    {
        try {
            while ($parser->next() !== null) {
                // Skip valid requests pipelined before the broken one.
            }
            self::fail(\sprintf('Expected HTTP %d, the parser wants more bytes.', $status));
        } catch (HttpParseException $e) {
            self::assertSame($status, $e->status, $e->getMessage());
            self::assertNotSame('', $e->getMessage());
        }
    }
}
