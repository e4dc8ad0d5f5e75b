<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket\Route;

use Nexus\Http\WebSocket\OverflowPolicy;
use Nexus\Http\WebSocket\SendResult;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestFrame;

/**
 * The unsent-bytes cap on a route's connections: a handler's send() waits for a client that does
 * not read (it runs in a fiber), trySend() gets the route's policy at once (drop with a counter,
 * or close with 1008), and the bytes held for the client stay under the cap plus one message.
 */
final class RouteBackpressureTest extends RouteTestCase
{
    private const CAP = 131_072;
    private const MESSAGE = 16_384;
    /** 32 MiB: more than loopback's socket buffers and the cap together. */
    private const COUNT = 2000;

    public function testASendInAHandlerWaitsForTheClientToReadAndLosesNothing(): void
    {
        $results = [];
        $done = false;
        $handler = new RecordingHandler(static function (WebSocket $socket) use (&$results, &$done): void {
            for ($i = 0; $i < self::COUNT; ++$i) {
                $results[] = $socket->sendBinary(self::message($i));
            }
            $done = true;
        });
        $this->app->websocket('/ws', $handler, new WebSocketOptions(maxUnsentBytes: self::CAP, overflowPolicy: OverflowPolicy::Drop, handlerTimeout: 60.0));
        $this->serve();

        $client = $this->open('/ws');
        $client->connection->pause(); // the client stops reading
        $client->sendText('flood');
        $this->runUntil(static fn(): bool => $handler->sockets !== [] && $handler->sockets[0]->unsentBytes() >= self::CAP);
        $socket = $handler->sockets[0];
        self::assertFalse($done, 'the handler waits while the client does not read');
        self::assertLessThanOrEqual(self::CAP + self::MESSAGE + 14, $socket->unsentBytes(), 'at most the cap plus one message is held');

        $client->connection->resume();
        for ($i = 0; $i < self::COUNT; ++$i) {
            self::assertSame($i, self::sequence($client->nextFrame()), "message {$i}");
        }
        $this->runUntil(static function () use (&$done): bool {
            return $done;
        });
        self::assertSame(array_fill(0, self::COUNT, SendResult::Sent), $results);
        self::assertSame(0, $socket->droppedMessages());
    }

    public function testTrySendDropsAndCountsAtTheCapWithTheDropPolicy(): void
    {
        $dropped = null;
        $handler = new RecordingHandler(static function (WebSocket $socket) use (&$dropped): void {
            $sent = 0;
            while ($socket->trySend(self::message($sent), true) === SendResult::Sent) {
                ++$sent;
            }
            $dropped = $sent;
            for ($i = 0; $i < 9; ++$i) {
                $socket->trySend(self::message(-1), true);
            }
        });
        $this->app->websocket('/ws', $handler, new WebSocketOptions(maxUnsentBytes: self::CAP, overflowPolicy: OverflowPolicy::Drop));
        $this->serve();

        $client = $this->open('/ws');
        $client->connection->pause();
        $client->sendText('flood');
        $this->runUntil(static function () use (&$dropped): bool {
            return $dropped !== null;
        });
        $socket = $handler->sockets[0];
        self::assertSame(10, $socket->droppedMessages());
        self::assertSame(10 * self::MESSAGE, $socket->droppedBytes());
        self::assertLessThanOrEqual(self::CAP + self::MESSAGE + 14, $socket->unsentBytes());
        self::assertTrue($socket->isOpen());

        $client->connection->resume();
        for ($i = 0; $i < $dropped; ++$i) {
            self::assertSame($i, self::sequence($client->nextFrame()), "message {$i}: every one reported Sent arrives, in order");
        }
    }

    public function testTrySendClosesWith1008AtTheCapWithTheClosePolicy(): void
    {
        $sent = null;
        $handler = new RecordingHandler(static function (WebSocket $socket) use (&$sent): void {
            $count = 0;
            while ($socket->trySend(self::message($count), true) === SendResult::Sent) {
                ++$count;
            }
            $sent = $count;
        });
        $this->app->websocket('/ws', $handler, new WebSocketOptions(maxUnsentBytes: self::CAP, overflowPolicy: OverflowPolicy::Close));
        $this->serve();

        $client = $this->open('/ws');
        $client->connection->pause();
        $client->sendText('flood');
        $this->runUntil(static function () use (&$sent): bool {
            return $sent !== null;
        });
        $client->connection->resume();
        for ($i = 0; $i < $sent; ++$i) {
            self::assertSame($i, self::sequence($client->nextFrame()), "message {$i}");
        }
        $close = $client->nextFrame();
        self::assertSame(1008, $close?->closeCode());
        $client->sendClose(1008);
        $client->awaitEof();
        $socket = $handler->sockets[0];
        $this->runUntil(static fn(): bool => \count($handler->eventsOf($socket)) === 3);
        self::assertStringStartsWith('close 1008 ', $handler->eventsOf($socket)[2]);
    }

    private static function message(int $sequence): string
    {
        return pack('N', $sequence & 0xFFFFFFFF) . str_repeat('x', self::MESSAGE - 4);
    }

    private static function sequence(?TestFrame $frame): int
    {
        self::assertNotNull($frame);
        self::assertSame(0x2, $frame->opcode);
        /** @var array{1: int} $number */
        $number = unpack('N', $frame->payload);

        return $number[1];
    }
}
