<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Parser;

use Nexus\Http\Parser\HttpParseException;
use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Parser\RequestParser;
use Nexus\Http\Request;
use Nexus\Tests\Support\CpuTime;
use PHPUnit\Framework\TestCase;

/**
 * The chunked decoder: correct for every chunk shape and split, and cheap for the costliest shape,
 * a body of one-byte chunks (six bytes on the wire per byte of body).
 */
final class ChunkedDecodingTest extends TestCase
{
    private const HEAD = "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";

    /**
     * 8 MiB of one-byte chunks cost 2.7 s of CPU before the decoder took whole chunks in one tight
     * loop, 0.85 s after (no JIT). The bound lies between, and getrusage counts only this
     * process's CPU, so a loaded machine does not move it.
     */
    public function testAnEightMiBBodyOfOneByteChunksDecodesWithinACpuBound(): void
    {
        $bytes = 8 * 1024 * 1024;
        $wire = self::HEAD . str_repeat("1\r\nx\r\n", $bytes) . "0\r\n\r\n";
        $parser = new RequestParser();

        $cpu = CpuTime::seconds();
        $requests = self::feed($parser, $wire, 65_536);
        $spent = CpuTime::seconds() - $cpu;

        self::assertCount(1, $requests);
        self::assertSame($bytes, \strlen($requests[0]->body()));
        self::assertLessThan(1.6, $spent, \sprintf('%.2f s of CPU to decode 8 MiB of one-byte chunks', $spent));
    }

    public function testEveryChunkShapeDecodesTheSameWhereverTheBytesAreSplit(): void
    {
        mt_srand(7);
        $body = '';
        $chunks = '';
        for ($i = 0; $i < 400; ++$i) {
            $size = [1, 2, 9, 15, 16, 17, 255, 256, 4095, mt_rand(1, 3000)][$i % 10];
            $data = '';
            for ($j = 0; $j < $size; ++$j) {
                $data .= \chr(mt_rand(0, 255)); // CR, LF and hex digits included
            }
            $body .= $data;
            $hex = dechex($size);
            $chunks .= match ($i % 5) {
                0 => $hex,
                1 => strtoupper($hex),
                2 => '000' . $hex, // leading zeros
                3 => $hex . ';name=value', // an extension
                default => $hex . " \t;x", // whitespace before an extension
            } . "\r\n" . $data . "\r\n";
        }
        $wire = self::HEAD . $chunks . "0\r\nX-Trailer: yes\r\n\r\n" . "GET /next HTTP/1.1\r\nHost: h\r\n\r\n";

        foreach ([1, 2, 3, 5, 7, 64, 1000, 65_536, \strlen($wire)] as $piece) {
            $requests = self::feed(new RequestParser(), $wire, $piece);
            self::assertCount(2, $requests, "pieces of {$piece} bytes");
            self::assertSame(md5($body), md5($requests[0]->body()), "pieces of {$piece} bytes");
            self::assertSame('/next', $requests[1]->path());
        }
    }

    public function testTheBodyLimitHoldsForWholeChunksTakenAtOnce(): void
    {
        $parser = new RequestParser(new ParserLimits(maxBodyBytes: 100));
        $parser->feed(self::HEAD . str_repeat("a\r\n0123456789\r\n", 11) . "0\r\n\r\n");

        try {
            $parser->next();
            self::fail('a body over the limit must be refused');
        } catch (HttpParseException $e) {
            self::assertSame(413, $e->status);
        }
    }

    public function testDataNotFollowedByCrlfIsRefusedOnTheFastPath(): void
    {
        $parser = new RequestParser();
        $parser->feed(self::HEAD . "3\r\nabcX\r\n0\r\n\r\n");

        try {
            $parser->next();
            self::fail('chunk data longer than its size must be refused');
        } catch (HttpParseException $e) {
            self::assertSame(400, $e->status);
        }
    }

    /**
     * @param positive-int $piece
     *
     * @return list<Request>
     */
    private static function feed(RequestParser $parser, string $wire, int $piece): array
    {
        $requests = [];
        foreach (str_split($wire, $piece) as $bytes) {
            $parser->feed($bytes);
            while (($request = $parser->next()) !== null) {
                $requests[] = $request;
            }
        }

        return $requests;
    }
}
