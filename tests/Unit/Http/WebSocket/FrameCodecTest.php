<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\Exception\ProtocolException;
use Nexus\Http\WebSocket\Frame;
use Nexus\Http\WebSocket\FrameDecoder;
use Nexus\Http\WebSocket\FrameEncoder;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class FrameCodecTest extends TestCase
{
    /**
     * @return iterable<string, array{int, int}>
     */
    public static function lengths(): iterable
    {
        // payload length => header length (unmasked)
        foreach ([0 => 2, 1 => 2, 125 => 2, 126 => 4, 65_535 => 4, 65_536 => 10, 200_000 => 10] as $length => $header) {
            yield "{$length} bytes" => [$length, $header];
        }
    }

    #[DataProvider('lengths')]
    public function testEncodesEachLengthInItsMinimalForm(int $length, int $header): void
    {
        $payload = str_repeat('x', $length);
        self::assertSame($header + $length, \strlen(FrameEncoder::encode(0x2, $payload)));
        self::assertSame($header + 4 + $length, \strlen(FrameEncoder::encode(0x2, $payload, mask: true)));
    }

    #[DataProvider('lengths')]
    public function testMaskedFramesRoundTripThroughTheServerDecoder(int $length): void
    {
        $payload = $length > 0 ? random_bytes($length) : '';
        $decoder = new FrameDecoder(true, 1 << 20);
        $decoder->feed(FrameEncoder::encode(0x2, $payload, mask: true));

        $frame = $decoder->next();
        self::assertEquals(new Frame(0x2, true, false, $payload), $frame);
        self::assertNull($decoder->next());
        self::assertSame(0, $decoder->bufferedBytes());
    }

    public function testTheShortHeadsAreWhatEncodeWritesForEveryShortTextAndBinaryFrame(): void
    {
        self::assertCount(252, FrameEncoder::SHORT_HEADS);
        for ($length = 0; $length < 126; ++$length) {
            $payload = str_repeat('x', $length);
            self::assertSame(FrameEncoder::encode(0x1, $payload), FrameEncoder::SHORT_HEADS[$length] . $payload, "text, {$length} bytes");
            self::assertSame(FrameEncoder::encode(0x2, $payload), FrameEncoder::SHORT_HEADS[$length + 126] . $payload, "binary, {$length} bytes");
        }
    }

    #[DataProvider('lengths')]
    public function testNextPayloadUnmasksEveryLengthAndLeavesTheFrameBitsInTheDecoder(int $length): void
    {
        $payload = $length > 0 ? random_bytes($length) : '';
        $decoder = new FrameDecoder(true, 1 << 20, allowRsv1: true);
        // Two frames in one read, as the connection's hot path meets them: the fields follow each.
        $decoder->feed(FrameEncoder::encode(0x2, $payload, fin: false, rsv1: true, mask: true) . FrameEncoder::encode(0x0, $payload, mask: true));

        self::assertSame($payload, $decoder->nextPayload());
        self::assertSame([0x2, false, true], [$decoder->opcode, $decoder->fin, $decoder->rsv1]);
        self::assertSame($payload, $decoder->nextPayload());
        self::assertSame([0x0, true, false], [$decoder->opcode, $decoder->fin, $decoder->rsv1]);
        self::assertNull($decoder->nextPayload());
        self::assertSame(0, $decoder->bufferedBytes());
    }

    public function testNextPayloadOfAMaskedFrameSplitInsideItsMaskKey(): void
    {
        $frame = FrameEncoder::encode(0x1, 'héllo', mask: true);
        $decoder = new FrameDecoder(true, 1024);
        $decoder->feed(substr($frame, 0, 4)); // header and half the key
        self::assertNull($decoder->nextPayload());
        $decoder->feed(substr($frame, 4));
        self::assertSame('héllo', $decoder->nextPayload());
        self::assertSame(0x1, $decoder->opcode);
        self::assertTrue($decoder->fin);
    }

    public function testUnmaskedFramesRoundTripThroughTheClientDecoder(): void
    {
        $decoder = new FrameDecoder(false, 1 << 20, allowRsv1: true);
        $decoder->feed(FrameEncoder::encode(0x1, 'one', fin: false, rsv1: true) . FrameEncoder::encode(0x0, 'two'));

        self::assertEquals(new Frame(0x1, false, true, 'one'), $decoder->next());
        self::assertEquals(new Frame(0x0, true, false, 'two'), $decoder->next());
    }

    public function testFramesSplitAtEveryByteBoundary(): void
    {
        $stream = FrameEncoder::encode(0x1, 'first', mask: true)
            . FrameEncoder::encode(0x2, str_repeat('b', 300), mask: true)
            . FrameEncoder::encode(0x9, '', mask: true);
        for ($cut = 0; $cut <= \strlen($stream); ++$cut) {
            $decoder = new FrameDecoder(true, 1024);
            $frames = [];
            foreach ([substr($stream, 0, $cut), substr($stream, $cut)] as $piece) {
                $decoder->feed($piece);
                while (($frame = $decoder->next()) !== null) {
                    $frames[] = $frame->payload;
                }
            }
            self::assertSame(['first', str_repeat('b', 300), ''], $frames, "cut at {$cut}");
        }
    }

    public function testLargeFrameArrivingInChunksIsGatheredAndJoinedOnce(): void
    {
        $payload = random_bytes(1_000_000);
        $bytes = FrameEncoder::encode(0x2, $payload, mask: true) . FrameEncoder::encode(0x1, 'after', mask: true);
        $decoder = new FrameDecoder(true, 2_000_000);
        $frames = [];
        foreach (str_split($bytes, 65_536) as $chunk) {
            $decoder->feed($chunk);
            while (($frame = $decoder->next()) !== null) {
                $frames[] = $frame;
            }
            self::assertLessThanOrEqual(\strlen($bytes), $decoder->bufferedBytes());
        }

        self::assertCount(2, $frames);
        self::assertSame($payload, $frames[0]->payload);
        self::assertSame('after', $frames[1]->payload);
    }

    /**
     * @return iterable<string, array{string, int, bool, bool}>
     */
    public static function invalidHeaders(): iterable
    {
        yield 'unmasked to a server' => ["\x81\x00", CloseCode::PROTOCOL_ERROR, true, false];
        yield 'masked to a client' => ["\x81\x80abcd", CloseCode::PROTOCOL_ERROR, false, false];
        yield 'RSV1 without deflate' => ["\xC1\x80abcd", CloseCode::PROTOCOL_ERROR, true, false];
        yield 'RSV1 on a continuation' => ["\xC0\x80abcd", CloseCode::PROTOCOL_ERROR, true, true];
        yield 'RSV1 on a ping' => ["\xC9\x80abcd", CloseCode::PROTOCOL_ERROR, true, true];
        yield 'RSV2' => ["\xA1\x80abcd", CloseCode::PROTOCOL_ERROR, true, true];
        yield 'RSV3' => ["\x91\x80abcd", CloseCode::PROTOCOL_ERROR, true, true];
        yield 'opcode 3' => ["\x83\x80abcd", CloseCode::PROTOCOL_ERROR, true, false];
        yield 'opcode 11' => ["\x8B\x80abcd", CloseCode::PROTOCOL_ERROR, true, false];
        yield 'fragmented ping' => ["\x09\x80abcd", CloseCode::PROTOCOL_ERROR, true, false];
        yield 'close of 126 bytes' => ["\x88\xFE\x00\x7E", CloseCode::PROTOCOL_ERROR, true, false];
        yield '16-bit length under 126' => ["\x82\xFE\x00\x7D", CloseCode::PROTOCOL_ERROR, true, false];
        yield '64-bit length under 65536' => ["\x82\xFF\x00\x00\x00\x00\x00\x00\xFF\xFF", CloseCode::PROTOCOL_ERROR, true, false];
        yield '64-bit length with the top bit' => ["\x82\xFF\x80\x00\x00\x00\x00\x00\x00\x00", CloseCode::PROTOCOL_ERROR, true, false];
        yield 'over the payload limit' => ["\x82\xFE\x04\x01", CloseCode::MESSAGE_TOO_BIG, true, false];
    }

    #[DataProvider('invalidHeaders')]
    public function testRejectsBadHeadersBeforeReadingThePayload(string $bytes, int $code, bool $server, bool $rsv1): void
    {
        $decoder = new FrameDecoder($server, 1024, $rsv1);
        $decoder->feed($bytes);
        try {
            $decoder->next();
            self::fail('The frame was accepted.');
        } catch (ProtocolException $e) {
            self::assertSame($code, $e->closeCode, $e->getMessage());
        }
    }

    public function testIncompleteHeaderWaitsForMoreBytes(): void
    {
        $decoder = new FrameDecoder(true, 100_000);
        foreach (["\x82", "\xFE", "\x01", "\x00", 'ab', 'cd'] as $byte) {
            $decoder->feed($byte);
            self::assertNull($decoder->next());
        }
        $decoder->feed(str_repeat("\0", 256));
        self::assertSame(256, \strlen($decoder->next()->payload ?? ''));
    }

    public function testClosePayload(): void
    {
        self::assertSame("\x03\xE8bye", FrameEncoder::closePayload(1000, 'bye'));
    }
}
