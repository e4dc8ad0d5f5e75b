<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;
use PHPUnit\Framework\Attributes\DataProvider;

/**
 * Each breach of RFC 6455 fails the connection with its close code, no message of the bad frames
 * is delivered, and the server closes the TCP connection after its close frame.
 */
final class ProtocolErrorTest extends WebSocketTestCase
{
    /**
     * @return iterable<string, array{string, int}>
     */
    public static function hostileFrames(): iterable
    {
        yield 'unmasked client frame' => [TestClient::frame(0x1, 'hi', mask: false), CloseCode::PROTOCOL_ERROR];
        yield 'RSV1 without permessage-deflate' => [TestClient::frame(0x1, 'hi', rsv: 0x40), CloseCode::PROTOCOL_ERROR];
        yield 'RSV2' => [TestClient::frame(0x1, 'hi', rsv: 0x20), CloseCode::PROTOCOL_ERROR];
        yield 'RSV3' => [TestClient::frame(0x2, 'hi', rsv: 0x10), CloseCode::PROTOCOL_ERROR];
        foreach ([3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as $opcode) {
            yield "reserved opcode {$opcode}" => [TestClient::frame($opcode, 'hi'), CloseCode::PROTOCOL_ERROR];
        }
        yield 'fragmented ping' => [TestClient::frame(0x9, 'hi', fin: false), CloseCode::PROTOCOL_ERROR];
        yield 'fragmented close' => [TestClient::frame(0x8, "\x03\xE8", fin: false), CloseCode::PROTOCOL_ERROR];
        yield 'ping of 126 bytes' => [TestClient::frame(0x9, str_repeat('p', 126)), CloseCode::PROTOCOL_ERROR];
        yield 'pong of 126 bytes' => [TestClient::frame(0xA, str_repeat('p', 126)), CloseCode::PROTOCOL_ERROR];
        yield 'continuation with no message' => [TestClient::frame(0x0, 'orphan'), CloseCode::PROTOCOL_ERROR];
        yield 'new text frame inside a fragmented message' => [
            TestClient::frame(0x1, 'first', fin: false) . TestClient::frame(0x1, 'second'),
            CloseCode::PROTOCOL_ERROR,
        ];
        yield 'new binary frame inside a fragmented message' => [
            TestClient::frame(0x2, 'first', fin: false) . TestClient::frame(0x2, 'second'),
            CloseCode::PROTOCOL_ERROR,
        ];
        yield 'close with a 1-byte payload' => [TestClient::frame(0x8, "\x03"), CloseCode::PROTOCOL_ERROR];
        foreach ([0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as $code) {
            yield "close code {$code}" => [TestClient::frame(0x8, pack('n', $code)), CloseCode::PROTOCOL_ERROR];
        }
        yield 'close reason not UTF-8' => [TestClient::frame(0x8, pack('n', 1000) . "\xC0\xAF"), CloseCode::INVALID_PAYLOAD];
        yield 'text not UTF-8' => [TestClient::frame(0x1, "caf\xE9"), CloseCode::INVALID_PAYLOAD];
        yield 'text with a UTF-16 surrogate' => [TestClient::frame(0x1, "\xED\xA0\x80"), CloseCode::INVALID_PAYLOAD];
        yield 'text with an overlong form' => [TestClient::frame(0x1, "\xC0\x80"), CloseCode::INVALID_PAYLOAD];
        yield 'text past U+10FFFF' => [TestClient::frame(0x1, "\xF4\x90\x80\x80"), CloseCode::INVALID_PAYLOAD];
        yield 'text ending inside a character' => [TestClient::frame(0x1, "ok\xF0\x9F\x98"), CloseCode::INVALID_PAYLOAD];
        yield 'fragmented text ending inside a character' => [
            TestClient::frame(0x1, "ok\xF0\x9F", fin: false) . TestClient::frame(0x0, "\x98"),
            CloseCode::INVALID_PAYLOAD,
        ];
        yield 'fragment boundary then an invalid continuation' => [
            TestClient::frame(0x1, "ok\xE2\x82", fin: false) . TestClient::frame(0x0, "\x28rest"),
            CloseCode::INVALID_PAYLOAD,
        ];
        yield '16-bit length not minimal' => ["\x81\xFE\x00\x05" . 'abcd' . ('hello' ^ 'abcda'), CloseCode::PROTOCOL_ERROR];
        yield '64-bit length not minimal' => ["\x81\xFF" . pack('J', 5) . 'abcd' . ('hello' ^ 'abcda'), CloseCode::PROTOCOL_ERROR];
        yield '64-bit length with the top bit set' => ["\x81\xFF\x80\x00\x00\x00\x00\x00\x00\x01" . 'abcd', CloseCode::PROTOCOL_ERROR];
        yield 'frame over maxFramePayload (header only)' => ["\x82\xFF" . pack('J', 1 << 40) . 'abcd', CloseCode::MESSAGE_TOO_BIG];
    }

    #[DataProvider('hostileFrames')]
    public function testHostileFrameFailsTheConnection(string $bytes, int $expectedCode): void
    {
        $received = [];
        $closed = null;
        $this->serve(static function (WebSocketConnection $ws) use (&$received, &$closed): void {
            $ws->onMessage(static function (string $payload) use (&$received): void {
                $received[] = $payload;
            });
            $ws->onClose(static function (int $code) use (&$closed): void {
                $closed = $code;
            });
        });
        $client = $this->open();
        $client->sendRaw($bytes);

        $this->assertClosedWith($client, $expectedCode);
        self::assertSame([], $received, 'nothing from the bad frames is delivered');
        self::assertSame($expectedCode, $closed, 'onClose reports the code the server failed the connection with');
    }

    public function testInvalidUtf8IsRejectedAsSoonAsItsFragmentArrives(): void
    {
        $this->echoServer();
        $client = $this->open();
        // The first fragment is already invalid; the message is never finished.
        $client->sendFrame(0x1, "valid, then \xFF", fin: false);

        $this->assertClosedWith($client, CloseCode::INVALID_PAYLOAD);
    }

    public function testMessageOverTheLimitIsRejectedWhenTheFragmentPassingItArrives(): void
    {
        $this->echoServer(new WebSocketOptions(maxFramePayload: 1000, maxMessageSize: 2500));
        $client = $this->open();
        $client->sendFrame(0x2, str_repeat('a', 1000), fin: false);
        $client->sendFrame(0x0, str_repeat('b', 1000), fin: false);
        $client->sendFrame(0x0, str_repeat('c', 1000), fin: false);

        $this->assertClosedWith($client, CloseCode::MESSAGE_TOO_BIG);
    }

    public function testFrameOverTheLimitIsRejectedBeforeItsPayloadIsSent(): void
    {
        $this->echoServer(new WebSocketOptions(maxFramePayload: 1000, maxMessageSize: 5000));
        $client = $this->open();
        // Only the header of a 1001-byte frame: the server decides from the length alone.
        $client->sendRaw("\x82\xFE" . pack('n', 1001) . 'abcd');

        $this->assertClosedWith($client, CloseCode::MESSAGE_TOO_BIG);
    }

    public function testSingleFrameMessageOverMaxMessageSizeIsRejected(): void
    {
        $this->echoServer(new WebSocketOptions(maxFramePayload: 4096, maxMessageSize: 1000));
        $client = $this->open();
        $client->sendBinary(str_repeat('x', 1001));

        $this->assertClosedWith($client, CloseCode::MESSAGE_TOO_BIG);
    }

    public function testMessagesBeforeTheBadFrameAreDeliveredAndNothingAfter(): void
    {
        $this->echoServer();
        $client = $this->open();
        $client->sendRaw(
            TestClient::frame(0x1, 'one')
            . TestClient::frame(0x1, 'two')
            . TestClient::frame(0x1, 'three', mask: false)
            . TestClient::frame(0x1, 'four'),
        );

        self::assertSame('one', $client->nextFrame()?->payload);
        self::assertSame('two', $client->nextFrame()?->payload);
        $this->assertClosedWith($client, CloseCode::PROTOCOL_ERROR);
    }

    public function testServerDiscardsWhatTheClientSendsAfterTheFailureAndStillCloses(): void
    {
        $this->echoServer();
        $client = $this->open();
        $client->sendRaw(TestClient::frame(0x1, 'bad', rsv: 0x20));
        for ($i = 0; $i < 50; ++$i) {
            $client->sendText("late {$i}");
        }

        $this->assertClosedWith($client, CloseCode::PROTOCOL_ERROR);
    }
}
