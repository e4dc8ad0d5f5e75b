<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\Parser;

use Nexus\Http\Parser\HttpParseException;
use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Parser\RequestParser;
use PHPUnit\Framework\TestCase;

/**
 * Random damage to valid requests must end in requests or an HttpParseException with a 4xx/5xx
 * status: never another exception, warning or notice (PHPUnit fails on those).
 */
final class RequestParserFuzzTest extends TestCase
{
    private const SEEDS = [
        "GET /index.html?a=1&b=%20 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n",
        "POST /form HTTP/1.1\r\nHost: h\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2",
        "PUT /up HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Sum: 1\r\n\r\n",
        "GET http://example.com:80/p?q HTTP/1.1\r\nHost: example.com\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
    ];

    private const INSERTS = ["\r\n", "\n", "\r", ' ', "\t", ':', ';', ',', "\0", '0', 'f', '-', "\xFF", "\r\n\r\n", 'HTTP/1.1', 'chunked', '99999999999999999999'];

    public function testRandomlyDamagedRequestsNeverEscapeAsOtherErrors(): void
    {
        mt_srand(20261122);
        $limits = new ParserLimits(maxRequestLineLength: 256, maxHeaderBytes: 512, maxHeaderCount: 8, maxBodyBytes: 64, maxChunkLineLength: 32);
        $outcomes = ['request' => 0, 'error' => 0, 'incomplete' => 0];

        for ($round = 0; $round < 2000; ++$round) {
            $bytes = self::mutate(self::SEEDS[mt_rand(0, \count(self::SEEDS) - 1)]);
            $parser = new RequestParser($round % 2 === 0 ? $limits : null);
            try {
                $offset = 0;
                $length = \strlen($bytes);
                $got = false;
                $seen = [];
                while ($offset < $length) {
                    $piece = mt_rand(1, 40);
                    $parser->feed(substr($bytes, $offset, $piece));
                    $offset += $piece;
                    while (($request = $parser->next()) !== null) {
                        $got = true;
                        // Exercise the lazy parts too: they must not warn on damaged input.
                        $seen[] = [$request->keepAlive(), $request->queryParams()];
                        self::assertTrue($request->header('host') !== null || $request->protocolVersion() === '1.0');
                    }
                    $parser->needsContinue();
                }
                self::assertSame($got, $seen !== []);
                ++$outcomes[$got ? 'request' : 'incomplete'];
            } catch (HttpParseException $e) {
                self::assertGreaterThanOrEqual(400, $e->status, $e->getMessage());
                self::assertLessThanOrEqual(505, $e->status, $e->getMessage());
                ++$outcomes['error'];
            }
        }

        self::assertSame(2000, array_sum($outcomes));
        self::assertGreaterThan(100, $outcomes['request'], 'mutations should leave some requests valid');
        self::assertGreaterThan(100, $outcomes['error'], 'mutations should break some requests');
    }

    private static function mutate(string $bytes): string
    {
        $mutations = mt_rand(1, 4);
        for ($i = 0; $i < $mutations; ++$i) {
            $length = \strlen($bytes);
            if ($length === 0) {
                return $bytes;
            }
            $at = mt_rand(0, $length - 1);
            switch (mt_rand(0, 6)) {
                case 0:
                    $bytes = substr($bytes, 0, $at);
                    break;
                case 1:
                    $bytes[$at] = \chr(mt_rand(0, 255));
                    break;
                case 2:
                    $bytes = substr($bytes, 0, $at) . self::INSERTS[mt_rand(0, \count(self::INSERTS) - 1)] . substr($bytes, $at);
                    break;
                case 3:
                    $bytes = substr($bytes, 0, $at) . substr($bytes, $at + mt_rand(1, 8));
                    break;
                case 4:
                    $bytes = substr($bytes, 0, $at) . substr($bytes, $at, mt_rand(1, 30)) . substr($bytes, $at);
                    break;
                case 5:
                    $bytes = substr($bytes, 0, $at) . str_repeat(substr($bytes, $at, 1), mt_rand(1, 600)) . substr($bytes, $at + 1);
                    break;
                default:
                    // Leave this round's bytes alone so some requests stay valid.
                    break;
            }
        }

        return $bytes;
    }
}
