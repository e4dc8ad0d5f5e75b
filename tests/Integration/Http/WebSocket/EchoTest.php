<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * Valid traffic, end to end: every length encoding, fragmentation with control frames between
 * the fragments, UTF-8 split across fragments, bytes that arrive one at a time, and frames the
 * client sent right behind its handshake request.
 */
final class EchoTest extends WebSocketTestCase
{
    /**
     * @return iterable<string, array{int}>
     */
    public static function sizes(): iterable
    {
        foreach ([0, 1, 125, 126, 127, 65_535, 65_536, 65_537, 300_000] as $size) {
            yield "{$size} bytes" => [$size];
        }
    }

    #[DataProvider('sizes')]
    public function testEchoesTextAndBinaryOfEveryLengthEncoding(int $size): void
    {
        $this->echoServer(new WebSocketOptions(deflate: null));
        $client = $this->open();
        $text = str_repeat('é', intdiv($size, 2)) . ($size % 2 === 1 ? 'x' : '');
        $binary = random_bytes(max(1, $size));

        $client->sendText($text);
        $client->sendBinary($binary);

        $first = $client->nextFrame();
        self::assertNotNull($first);
        self::assertSame(0x1, $first->opcode);
        self::assertTrue($first->fin);
        self::assertFalse($first->masked, 'a server never masks');
        self::assertSame($text, $first->payload);
        $second = $client->nextFrame();
        self::assertSame(0x2, $second?->opcode);
        self::assertSame($binary, $second->payload);
    }

    public function testFragmentedMessagesWithControlFramesBetweenFragments(): void
    {
        $this->echoServer();
        $client = $this->open();
        $client->sendFrame(0x1, 'Hel', fin: false);
        $client->sendFrame(0x9, 'ping between fragments');
        $client->sendFrame(0x0, 'lo, ', fin: false);
        $client->sendFrame(0xA, 'unsolicited pong');
        $client->sendFrame(0x0, 'world');
        $client->sendFrame(0x2, "\x00\x01", fin: false);
        $client->sendFrame(0x0, '', fin: false);
        $client->sendFrame(0x0, "\x02");

        $pong = $client->nextFrame();
        self::assertSame(0xA, $pong?->opcode, 'the ping is answered at once, inside the fragmented message');
        self::assertSame('ping between fragments', $pong->payload);
        self::assertSame('Hello, world', $client->nextFrame()?->payload);
        $binary = $client->nextFrame();
        self::assertSame(0x2, $binary?->opcode);
        self::assertSame("\x00\x01\x02", $binary->payload);
    }

    public function testUtf8CharactersSplitAcrossFragments(): void
    {
        $this->echoServer();
        $client = $this->open();
        $text = "a\u{00E9}b\u{20AC}c\u{1F600}d"; // 2-, 3- and 4-byte characters
        // Every way of cutting the text into two fragments, including inside each character.
        for ($cut = 0; $cut <= \strlen($text); ++$cut) {
            $client->sendFrame(0x1, substr($text, 0, $cut), fin: false);
            $client->sendFrame(0x0, substr($text, $cut));
        }
        // And one byte per fragment.
        $bytes = str_split($text);
        foreach ($bytes as $i => $byte) {
            $client->sendFrame($i === 0 ? 0x1 : 0x0, $byte, fin: $i === \count($bytes) - 1);
        }

        for ($i = 0; $i <= \strlen($text) + 1; ++$i) {
            self::assertSame($text, $client->nextFrame()?->payload, "message {$i}");
        }
    }

    public function testBytesArrivingOneAtATime(): void
    {
        $this->echoServer();
        $client = $this->open();
        $stream = TestClient::frame(0x1, 'slow')
            . TestClient::frame(0x2, str_repeat('b', 300))
            . TestClient::frame(0x9, 'p')
            . TestClient::frame(0x1, str_repeat('c', 70_000));
        $at = 0;
        $timer = $this->loop->repeat(0.0001, static function () use ($client, $stream, &$at): void {
            if ($at < \strlen($stream)) {
                // A byte per tick at first, then bigger pieces so the 70 KB frame does not take long.
                $step = $at < 400 ? 1 : 4096;
                $client->sendRaw(substr($stream, $at, $step));
                $at += $step;
            }
        });

        self::assertSame('slow', $client->nextFrame(10.0)?->payload);
        self::assertSame(str_repeat('b', 300), $client->nextFrame(10.0)?->payload);
        self::assertSame(0xA, $client->nextFrame(10.0)?->opcode);
        self::assertSame(str_repeat('c', 70_000), $client->nextFrame(10.0)?->payload);
        $this->loop->cancel($timer);
    }

    public function testFramesSentRightBehindTheHandshakeRequestAreNotLost(): void
    {
        $this->echoServer();
        $key = base64_encode(random_bytes(16));
        \assert($this->server !== null);
        $client = TestClient::connectRaw(
            $this->loop,
            $this->server->address(),
            "GET /chat HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            . "Sec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            . TestClient::frame(0x1, 'early one') . TestClient::frame(0x1, 'early two'),
        );

        self::assertSame(101, $client->status);
        self::assertSame(TestClient::expectedAccept($key), $client->header('sec-websocket-accept'));
        self::assertSame('early one', $client->nextFrame()?->payload);
        self::assertSame('early two', $client->nextFrame()?->payload);
        $client->close();
    }

    public function testManyMessagesComeBackInOrder(): void
    {
        $this->echoServer();
        $client = $this->open();
        $batch = '';
        for ($i = 0; $i < 2000; ++$i) {
            $batch .= TestClient::frame($i % 2 === 0 ? 0x1 : 0x2, "message {$i}");
        }
        $client->sendRaw($batch);

        for ($i = 0; $i < 2000; ++$i) {
            $frame = $client->nextFrame();
            self::assertSame("message {$i}", $frame?->payload);
            self::assertSame($i % 2 === 0 ? 0x1 : 0x2, $frame->opcode);
        }
    }

    public function testEveryShortLengthComesBackWithItsHeaderAndTheFirstLongOneToo(): void
    {
        // 0-125 bytes take the server's table of 2-byte headers; 126 the encoder's 4-byte form.
        $this->echoServer(new WebSocketOptions(deflate: null));
        $client = $this->open();
        $batch = '';
        for ($length = 0; $length <= 126; ++$length) {
            $batch .= TestClient::frame(0x1, str_repeat('t', $length)) . TestClient::frame(0x2, str_repeat("\xFF", $length));
        }
        $client->sendRaw($batch);

        for ($length = 0; $length <= 126; ++$length) {
            foreach ([0x1 => str_repeat('t', $length), 0x2 => str_repeat("\xFF", $length)] as $opcode => $payload) {
                $frame = $client->nextFrame();
                self::assertNotNull($frame, "{$length} bytes");
                self::assertSame($opcode, $frame->opcode, "{$length} bytes");
                self::assertTrue($frame->fin);
                self::assertFalse($frame->masked);
                self::assertSame(0, $frame->rsv);
                self::assertSame($payload, $frame->payload, "{$length} bytes");
            }
        }
    }

    public function testServerSendsToClientWithoutBeingAsked(): void
    {
        $this->serve(static function (WebSocketConnection $ws): void {
            $ws->onMessage(static function (): void {});
            $ws->sendText('welcome');
            $ws->sendBinary("\x00\xFF");
        });
        $client = $this->open();

        self::assertSame('welcome', $client->nextFrame()?->payload);
        self::assertSame("\x00\xFF", $client->nextFrame()?->payload);
    }
}
