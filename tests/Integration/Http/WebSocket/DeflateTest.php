<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * permessage-deflate (RFC 7692) over a real socket: negotiation, compressed and fragmented
 * compressed messages both ways with context takeover, and the inflate cap against a bomb.
 */
final class DeflateTest extends WebSocketTestCase
{
    private const OFFER = ['Sec-WebSocket-Extensions' => 'permessage-deflate; client_max_window_bits'];

    public function testCompressedMessagesBothWaysWithContextTakeover(): void
    {
        $this->echoServer();
        $client = $this->open(self::OFFER);
        self::assertSame('permessage-deflate', $client->header('sec-websocket-extensions'));

        $messages = [];
        for ($i = 0; $i < 5; ++$i) {
            // Repeats across messages: later ones compress against the earlier window.
            $messages[] = str_repeat("The quick brown fox {$i} jumps over the lazy dog. ", 40);
        }
        foreach ($messages as $message) {
            $client->sendCompressed($message);
        }
        foreach ($messages as $message) {
            $frame = $client->nextFrame();
            self::assertSame(0x40, $frame?->rsv, 'the server compresses its answer (RSV1)');
            self::assertLessThan(\strlen($message), \strlen($frame->payload));
            self::assertSame($message, $client->inflate($frame->payload));
        }
    }

    public function testFragmentedCompressedMessage(): void
    {
        $this->echoServer();
        $client = $this->open(self::OFFER);
        $message = str_repeat('fragmented and compressed é ', 500);
        $deflate = deflate_init(\ZLIB_ENCODING_RAW) ?: throw new \RuntimeException('deflate_init failed');
        $compressed = substr((string) deflate_add($deflate, $message, \ZLIB_SYNC_FLUSH), 0, -4);
        $pieces = str_split($compressed, max(1, intdiv(\strlen($compressed), 3) + 1));
        self::assertCount(3, $pieces);
        $client->sendFrame(0x1, $pieces[0], fin: false, rsv: 0x40);
        $client->sendFrame(0x9, 'between');
        $client->sendFrame(0x0, $pieces[1], fin: false);
        $client->sendFrame(0x0, $pieces[2]);

        self::assertSame(0xA, $client->nextFrame()?->opcode);
        $frame = $client->nextFrame();
        self::assertSame($message, $client->inflate((string) $frame?->payload));
    }

    public function testMessagesBelowTheThresholdGoUncompressed(): void
    {
        $this->echoServer(new WebSocketOptions(deflate: new DeflateOptions(threshold: 100)));
        $client = $this->open(self::OFFER);
        $client->sendCompressed('short');
        $client->sendText(str_repeat('long enough ', 10));

        $short = $client->nextFrame();
        self::assertSame(0, $short?->rsv);
        self::assertSame('short', $short->payload);
        $long = $client->nextFrame();
        self::assertSame(0x40, $long?->rsv);
        self::assertSame(str_repeat('long enough ', 10), $client->inflate($long->payload));
    }

    public function testServerNoContextTakeoverMakesEveryMessageStandAlone(): void
    {
        $this->echoServer();
        $client = $this->open(['Sec-WebSocket-Extensions' => 'permessage-deflate; server_no_context_takeover']);
        self::assertSame('permessage-deflate; server_no_context_takeover', $client->header('sec-websocket-extensions'));
        $message = str_repeat('same text every time ', 20);
        $client->sendText($message);
        $client->sendText($message);

        foreach ([1, 2] as $i) {
            $frame = $client->nextFrame();
            // A fresh inflater for each message: no window carried over.
            $inflate = inflate_init(\ZLIB_ENCODING_RAW) ?: throw new \RuntimeException('inflate_init failed');
            self::assertSame($message, inflate_add($inflate, $frame?->payload . "\x00\x00\xff\xff", \ZLIB_SYNC_FLUSH), "message {$i}");
        }
    }

    public function testAnOfferTheServerCannotHonourIsDeclinedForTheNextOne(): void
    {
        $this->echoServer();
        $client = $this->open(['Sec-WebSocket-Extensions' => 'permessage-deflate; server_max_window_bits=8, permessage-deflate; server_max_window_bits=10']);

        self::assertSame('permessage-deflate; server_max_window_bits=10', $client->header('sec-websocket-extensions'));
        $client->sendText(str_repeat('windowed ', 100));
        self::assertSame(str_repeat('windowed ', 100), $client->inflate((string) $client->nextFrame()?->payload));
    }

    public function testNoOfferMeansNoCompressionAndRsv1IsAnError(): void
    {
        $this->echoServer();
        $client = $this->open();
        self::assertNull($client->header('sec-websocket-extensions'));
        $client->sendCompressed('not agreed');

        $this->assertClosedWith($client, CloseCode::PROTOCOL_ERROR);
    }

    public function testDecompressionBombIsCutOffWithoutInflatingIt(): void
    {
        $received = 0;
        $this->serve(static function (WebSocketConnection $ws) use (&$received): void {
            $ws->onMessage(static function () use (&$received): void {
                ++$received;
            });
        }, new WebSocketOptions(maxMessageSize: 1_048_576));
        $client = $this->open(self::OFFER);
        // 200 MB of zeros in about 200 KB: with a sync flush after each MiB, every MiB after the
        // first compresses to the same bytes, so the stream is built by repetition.
        $deflate = deflate_init(\ZLIB_ENCODING_RAW, ['level' => 9]) ?: throw new \RuntimeException('deflate_init failed');
        $zeros = str_repeat("\0", 1_048_576);
        $first = (string) deflate_add($deflate, $zeros, \ZLIB_SYNC_FLUSH);
        $next = (string) deflate_add($deflate, $zeros, \ZLIB_SYNC_FLUSH);
        unset($zeros);
        $bomb = substr($first . str_repeat($next, 199), 0, -4);
        self::assertLessThan(300_000, \strlen($bomb));

        memory_reset_peak_usage();
        $before = memory_get_usage();
        $client->sendFrame(0x2, $bomb, rsv: 0x40);
        $this->assertClosedWith($client, CloseCode::MESSAGE_TOO_BIG);

        self::assertSame(0, $received);
        $grown = memory_get_peak_usage() - $before;
        // The bomb itself (~200 KB, copied a few times on its way) plus at most about the cap
        // and one slice of output: far from 200 MB.
        self::assertLessThan(8 * 1_048_576, $grown, "peak heap grew by {$grown} bytes");
    }

    public function testCorruptDeflateDataFailsWith1007(): void
    {
        $this->echoServer();
        $client = $this->open(self::OFFER);
        $client->sendFrame(0x2, "\xFF\xFF\xFF\xFF\xFF", rsv: 0x40);

        $this->assertClosedWith($client, CloseCode::INVALID_PAYLOAD);
    }

    public function testCompressedTextThatInflatesToInvalidUtf8FailsWith1007(): void
    {
        $this->echoServer();
        $client = $this->open(self::OFFER);
        $client->sendCompressed("caf\xE9 au lait");

        $this->assertClosedWith($client, CloseCode::INVALID_PAYLOAD);
    }

    public function testRsv1OnAContinuationFrameFailsWith1002(): void
    {
        $this->echoServer();
        $client = $this->open(self::OFFER);
        $client->sendFrame(0x1, 'plain start', fin: false);
        $client->sendFrame(0x0, 'compressed?', rsv: 0x40);

        $this->assertClosedWith($client, CloseCode::PROTOCOL_ERROR);
    }

    public function testRsv1OnAControlFrameFailsWith1002(): void
    {
        $this->echoServer();
        $client = $this->open(self::OFFER);
        $client->sendRaw(TestClient::frame(0x9, 'x', rsv: 0x40));

        $this->assertClosedWith($client, CloseCode::PROTOCOL_ERROR);
    }

    public function testCompressionCanBeTurnedOff(): void
    {
        $this->echoServer(new WebSocketOptions(deflate: null));
        $client = $this->open(self::OFFER);

        self::assertNull($client->header('sec-websocket-extensions'));
    }
}
