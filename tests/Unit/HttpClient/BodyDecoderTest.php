<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\HttpClient;

use Nexus\HttpClient\Exception\BodyTooLargeException;
use Nexus\HttpClient\Exception\ContentDecodingException;
use Nexus\HttpClient\Internal\BodyDecoder;
use PHPUnit\Framework\TestCase;

final class BodyDecoderTest extends TestCase
{
    public function testDecodesGzipZlibAndRawDeflateInPieces(): void
    {
        $text = str_repeat("some text that compresses well\n", 5000);
        $cases = [
            'gzip' => (string) gzencode($text),
            'deflate' => (string) gzcompress($text),
            'raw deflate' => (string) gzdeflate($text),
        ];
        foreach ($cases as $name => $encoded) {
            $decoder = new BodyDecoder($name === 'gzip' ? 'gzip' : 'deflate', 1 << 24);
            $out = '';
            foreach (str_split($encoded, 1000) as $piece) {
                $out .= $decoder->decode($piece);
            }
            $decoder->finish();
            self::assertSame($text, $out, $name);
        }
    }

    public function testADecompressionBombIsCutOffNearTheCap(): void
    {
        $bomb = (string) gzencode(str_repeat("\0", 50 << 20), 9);
        $decoder = new BodyDecoder('gzip', 1 << 20);
        $before = memory_get_peak_usage();
        try {
            $decoder->decode($bomb);
            self::fail('The cap must be enforced.');
        } catch (BodyTooLargeException $e) {
            self::assertStringContainsString('decompression bomb', $e->getMessage());
        }
        self::assertLessThan(16 << 20, memory_get_peak_usage() - $before, 'it stopped long before 50 MiB');
    }

    public function testTruncatedAndCorruptDataFail(): void
    {
        $encoded = (string) gzencode(str_repeat('abc', 10000));
        $decoder = new BodyDecoder('gzip', 1 << 20);
        $decoder->decode(substr($encoded, 0, 40));
        try {
            $decoder->finish();
            self::fail('A truncated stream must fail.');
        } catch (ContentDecodingException $e) {
            self::assertStringContainsString('truncated', $e->getMessage());
        }

        $this->expectException(ContentDecodingException::class);
        (new BodyDecoder('gzip', 1 << 20))->decode('definitely not gzip');
    }

    public function testKnownEncodings(): void
    {
        self::assertTrue(BodyDecoder::supports('gzip'));
        self::assertTrue(BodyDecoder::supports('deflate'));
        self::assertNull(BodyDecoder::supports('identity'));
        self::assertFalse(BodyDecoder::supports('br'));
    }
}
