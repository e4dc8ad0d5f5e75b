<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\Deflate\MessageDeflater;
use Nexus\Http\WebSocket\Deflate\MessageInflater;
use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\Exception\ProtocolException;
use PHPUnit\Framework\TestCase;

final class DeflateCodecTest extends TestCase
{
    public function testRoundTripWithContextTakeover(): void
    {
        $deflater = new MessageDeflater(new DeflateOptions(), 15, false);
        $inflater = new MessageInflater(false);
        $sizes = [];
        foreach (range(1, 4) as $i) {
            $message = str_repeat('context takeover helps repeated text. ', 30);
            $compressed = $deflater->deflate($message);
            $sizes[] = \strlen($compressed);
            self::assertStringEndsNotWith("\x00\x00\xff\xff", $compressed);
            self::assertSame($message, $inflater->inflate($compressed, true, 1 << 20), "message {$i}");
        }
        self::assertLessThan($sizes[0], $sizes[1], 'the second message refers back to the first');
    }

    public function testRoundTripWithoutContextTakeover(): void
    {
        $deflater = new MessageDeflater(new DeflateOptions(), 10, true);
        $message = str_repeat('standalone ', 50);
        $first = $deflater->deflate($message);
        self::assertSame($first, $deflater->deflate($message), 'each message starts from an empty window');
        self::assertSame($message, (new MessageInflater(true))->inflate($first, true, 1 << 20));
    }

    public function testFragmentsInflateAsTheyArrive(): void
    {
        $message = random_bytes(1000) . str_repeat('z', 50_000);
        $compressed = (new MessageDeflater(new DeflateOptions(), 15, false))->deflate($message);
        $inflater = new MessageInflater(false);
        $out = '';
        $pieces = str_split($compressed, 97);
        foreach ($pieces as $i => $piece) {
            $out .= $inflater->inflate($piece, $i === \count($pieces) - 1, (1 << 20) - \strlen($out));
        }

        self::assertSame($message, $out);
    }

    public function testBombIsCutOffNearTheLimit(): void
    {
        // 64 MiB of zeros: every MiB after the first compresses to the same bytes.
        $context = deflate_init(\ZLIB_ENCODING_RAW, ['level' => 9]) ?: throw new \RuntimeException('deflate_init failed');
        $zeros = str_repeat("\0", 1 << 20);
        $first = (string) deflate_add($context, $zeros, \ZLIB_SYNC_FLUSH);
        $next = (string) deflate_add($context, $zeros, \ZLIB_SYNC_FLUSH);
        unset($zeros);
        $bomb = substr($first . str_repeat($next, 63), 0, -4);
        $inflater = new MessageInflater(false);

        memory_reset_peak_usage();
        $before = memory_get_usage();
        try {
            $inflater->inflate($bomb, true, 100_000);
            self::fail('64 MiB came out of a 100 KB cap.');
        } catch (ProtocolException $e) {
            self::assertSame(CloseCode::MESSAGE_TOO_BIG, $e->closeCode);
        }
        self::assertLessThan(1 << 20, memory_get_peak_usage() - $before, 'cut off within about the cap and one slice');
    }

    public function testCorruptDataFailsWith1007(): void
    {
        try {
            (new MessageInflater(false))->inflate("\xFF\xFE\xFD", true, 1000);
            self::fail('Corrupt data was inflated.');
        } catch (ProtocolException $e) {
            self::assertSame(CloseCode::INVALID_PAYLOAD, $e->closeCode);
        }
    }

    public function testAFinalBlockEndsTheStreamAndTheNextMessageStartsFresh(): void
    {
        $inflater = new MessageInflater(false);
        // gzdeflate() ends with BFINAL set: a sender may do that (RFC 7692 §7.2.3.5).
        self::assertSame('first', $inflater->inflate((string) gzdeflate('first'), true, 1000));
        self::assertSame('second', $inflater->inflate((string) gzdeflate('second'), true, 1000));
    }

    public function testDataAfterTheFinalBlockFailsWith1007(): void
    {
        try {
            (new MessageInflater(false))->inflate(gzdeflate('done') . 'trailing garbage', true, 1000);
            self::fail('Trailing data was ignored.');
        } catch (ProtocolException $e) {
            self::assertSame(CloseCode::INVALID_PAYLOAD, $e->closeCode);
        }
    }
}
