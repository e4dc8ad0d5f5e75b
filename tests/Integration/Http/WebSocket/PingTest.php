<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\Exception\ControlFrameTooLargeException;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;

/**
 * Ping and pong both ways, and the idle timeout with server pings.
 */
final class PingTest extends WebSocketTestCase
{
    public function testClientPingIsAnsweredWithTheSamePayload(): void
    {
        $this->echoServer();
        $client = $this->open();
        $client->sendFrame(0x9, 'are you there?');
        $client->sendFrame(0x9, '');
        $client->sendFrame(0x9, str_repeat('9', 125));

        foreach (['are you there?', '', str_repeat('9', 125)] as $payload) {
            $pong = $client->nextFrame();
            self::assertSame(0xA, $pong?->opcode);
            self::assertSame($payload, $pong->payload);
        }
    }

    public function testServerPingReachesTheClientAndItsPongComesBack(): void
    {
        $pongs = [];
        $this->serve(static function (WebSocketConnection $ws) use (&$pongs): void {
            $ws->onMessage(static function (): void {});
            $ws->onPong(static function (string $payload) use (&$pongs): void {
                $pongs[] = $payload;
            });
        });
        $client = $this->open();
        $ws = $this->lastServerConnection();
        self::assertTrue($ws->ping('t=1'));

        $ping = $client->nextFrame();
        self::assertSame(0x9, $ping?->opcode);
        self::assertSame('t=1', $ping->payload);
        $client->sendFrame(0xA, $ping->payload);
        $this->runUntil(static function () use (&$pongs): bool {
            return $pongs !== [];
        });
        self::assertSame(['t=1'], $pongs);

        $this->expectException(ControlFrameTooLargeException::class);
        $ws->ping(str_repeat('x', 126));
    }

    public function testSilentClientIsPingedThenClosedWith1001(): void
    {
        $closed = null;
        $this->serve(static function (WebSocketConnection $ws) use (&$closed): void {
            $ws->onMessage(static function (): void {});
            $ws->onClose(static function (int $code) use (&$closed): void {
                $closed = $code;
            });
        }, new WebSocketOptions(pingInterval: 0.1, idleTimeout: 0.5, closeTimeout: 0.5));
        $client = $this->open();

        $ping = $client->nextFrame();
        self::assertSame(0x9, $ping?->opcode, 'a silent client is pinged first');
        // The client says nothing, pongs included: the server gives up with 1001.
        $close = $client->nextDataOrClose();
        self::assertSame(CloseCode::GOING_AWAY, $close?->closeCode());
        self::assertSame('idle timeout', $close->closeReason());
        $client->awaitEof();
        self::assertSame(CloseCode::GOING_AWAY, $closed);
    }

    public function testClientAnsweringPingsStaysConnected(): void
    {
        $this->echoServer(new WebSocketOptions(pingInterval: 0.1, idleTimeout: 1.0));
        $client = $this->open();
        $started = microtime(true);
        $pings = 0;
        // Answer pings for longer than the idle timeout.
        while (microtime(true) - $started < 1.5 || $pings < 3) {
            $frame = $client->nextFrame();
            self::assertSame(0x9, $frame?->opcode, 'only pings arrive, never a close');
            $client->sendFrame(0xA, $frame->payload);
            ++$pings;
        }
        $client->sendText('still here');
        self::assertSame('still here', $client->nextDataOrClose()?->payload);
        self::assertTrue($this->lastServerConnection()->isOpen());
    }

    public function testPingsCanBeTurnedOffLeavingOnlyTheIdleTimeout(): void
    {
        $this->echoServer(new WebSocketOptions(pingInterval: 0.0, idleTimeout: 0.2));
        $client = $this->open();

        $first = $client->nextFrame();
        self::assertSame(0x8, $first?->opcode, 'no ping, straight to the close');
        self::assertSame(CloseCode::GOING_AWAY, $first->closeCode());
    }
}
