<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket\Route;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Http\WebSocket\SendResult;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Runtime\Deferred;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * Each connection of a route behaves as an actor: its handler's callbacks run on the scheduler one
 * at a time and in order (onOpen, each message, onClose), a callback may wait (ask an actor)
 * without holding up the other connections, a callback that throws or runs out of its time closes
 * its connection with 1011 and gets no more messages, a closed connection stops it, and the
 * messages waiting for a slow handler are bounded.
 */
final class RouteSessionTest extends RouteTestCase
{
    public function testCallbacksRunOneAtATimeInOrderWhileOtherConnectionsGoOn(): void
    {
        /** @var Deferred<string> $gate */
        $gate = new Deferred($this->loop);
        $handler = new RecordingHandler(static function (WebSocket $socket, string $payload) use ($gate): void {
            $socket->send($payload === 'slow' ? 'slow ' . $gate->future()->await() : $payload);
        });
        $this->app->websocket('/ws', $handler);
        $this->serve();

        $slow = $this->open('/ws');
        $slow->sendRaw(TestClient::frame(0x1, 'slow') . TestClient::frame(0x1, 'a') . TestClient::frame(0x1, 'b'));
        $other = $this->open('/ws');
        $other->sendText('meanwhile');
        self::assertSame('meanwhile', $other->nextDataOrClose()?->payload, 'another connection is served while the first one waits');
        $socket = $handler->sockets[0];
        self::assertSame(['open', 'message text slow'], $handler->eventsOf($socket), 'the next message waits for the callback in progress');
        self::assertSame(2, $socket->pendingMessages());

        $gate->resolve('done');
        self::assertSame(['slow done', 'a', 'b'], [$slow->nextDataOrClose()?->payload, $slow->nextDataOrClose()?->payload, $slow->nextDataOrClose()?->payload]);
        $slow->sendClose(4000, 'bye');
        $slow->awaitClose();
        $this->runUntil(static fn(): bool => \count($handler->eventsOf($socket)) === 5);
        self::assertSame(['open', 'message text slow', 'message text a', 'message text b', 'close 4000 bye'], $handler->eventsOf($socket));
    }

    public function testAHandlerMayAskAnActor(): void
    {
        $upper = $this->system->spawn(Behavior::receive(static function (string $text, ActorContext $ctx): null {
            $ctx->reply(strtoupper($text));

            return null;
        }), 'upper');
        $this->app->websocket('/ws', new RecordingHandler(static function (WebSocket $socket, string $payload) use ($upper): void {
            $reply = $upper->ask($payload, 2.0)->await();
            \assert(\is_string($reply));
            $socket->send($reply);
        }));
        $this->serve();

        $client = $this->open('/ws');
        $client->sendText('shout');
        $client->sendText('louder');
        self::assertSame(['SHOUT', 'LOUDER'], [$client->nextDataOrClose()?->payload, $client->nextDataOrClose()?->payload]);
    }

    public function testOnOpenRunsBeforeAnyMessageEvenWhenItWaits(): void
    {
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $handler = new RecordingHandler(onOpen: static function (WebSocket $socket) use ($gate): void {
            $gate->future()->await();
            $socket->send('ready');
        });
        $this->app->websocket('/ws', $handler);
        $this->serve();

        $client = $this->open('/ws');
        $client->sendText('first');
        $this->runUntil(static fn(): bool => $handler->sockets !== [] && $handler->sockets[0]->pendingMessages() === 1);
        $gate->resolve(null);
        self::assertSame(['ready', 'first'], [$client->nextDataOrClose()?->payload, $client->nextDataOrClose()?->payload]);
    }

    public function testACallbackThatThrowsClosesWith1011AndGetsNoMoreMessages(): void
    {
        $handler = new RecordingHandler(static function (WebSocket $socket, string $payload): void {
            if ($payload === 'boom') {
                throw new \RuntimeException('the handler broke');
            }
            $socket->send($payload);
        });
        $this->app->websocket('/ws', $handler);
        $this->serve();

        $client = $this->open('/ws');
        $client->sendRaw(TestClient::frame(0x1, 'fine') . TestClient::frame(0x1, 'boom') . TestClient::frame(0x1, 'after'));
        self::assertSame('fine', $client->nextDataOrClose()?->payload);
        $close = $client->nextDataOrClose();
        self::assertSame([1011, 'internal error'], [$close?->closeCode(), $close?->closeReason()]);
        $client->sendClose(1011);
        $client->awaitEof();

        $socket = $handler->sockets[0];
        $this->runUntil(static fn(): bool => \count($handler->eventsOf($socket)) === 4);
        self::assertSame(['open', 'message text fine', 'message text boom', 'close 1011 internal error'], $handler->eventsOf($socket), '"after" was not handed to a failed handler; onClose still ran');
        self::assertCount(1, $this->logger->messages('error'));
        self::assertStringContainsString('onMessage() of WebSocket route GET /ws threw: the handler broke', $this->logger->messages('error')[0]);
    }

    public function testACallbackPastItsTimeLimitIsCancelledAndClosedWith1011(): void
    {
        /** @var Deferred<null> $never */
        $never = new Deferred($this->loop);
        $handler = new RecordingHandler(static function () use ($never): void {
            $never->future()->await();
        });
        $this->app->websocket('/ws', $handler, new WebSocketOptions(handlerTimeout: 0.2));
        $this->serve();

        $client = $this->open('/ws');
        $client->sendText('wait for ever');
        $close = $client->nextDataOrClose();
        self::assertSame(1011, $close?->closeCode());
        self::assertCount(1, $this->logger->messages('warning'));
        self::assertStringContainsString('ran out of its time limit', $this->logger->messages('warning')[0]);
    }

    public function testAClosedConnectionStopsItsHandler(): void
    {
        $results = [];
        $hooks = 0;
        $handler = new RecordingHandler(onOpen: static function (WebSocket $socket) use (&$hooks): void {
            $socket->onClose(static function () use (&$hooks): void {
                ++$hooks;
            });
        });
        $this->app->websocket('/ws', $handler);
        $this->serve();

        $client = $this->open('/ws');
        $client->sendText('one');
        self::assertSame('one', $client->nextDataOrClose()?->payload);
        $client->close(); // the TCP connection ends without a close frame
        $socket = $handler->sockets[0];
        $this->runUntil(static fn(): bool => \count($handler->eventsOf($socket)) === 3);

        self::assertSame(['open', 'message text one', 'close 1006 the peer closed the TCP connection without a close frame'], $handler->eventsOf($socket));
        self::assertFalse($socket->isOpen());
        $results[] = $socket->send('too late');
        $results[] = $socket->trySend('too late');
        self::assertSame([SendResult::Closed, SendResult::Closed], $results);
        self::assertSame(1, $hooks, 'the close hook ran once');
        $socket->onClose(static function () use (&$hooks): void {
            ++$hooks;
        });
        self::assertSame(2, $hooks, 'a hook added after the close runs at once');
    }

    public function testMessagesWaitingForAHandlerAreBoundedAndNoneIsLost(): void
    {
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $handler = new RecordingHandler(static function (WebSocket $socket, string $payload) use ($gate): void {
            if ($payload === '0') {
                $gate->future()->await();
            }
            $socket->send($payload);
        });
        $this->app->websocket('/ws', $handler, new WebSocketOptions(maxQueuedMessages: 4));
        $this->serve();

        $client = $this->open('/ws');
        $frames = '';
        for ($i = 0; $i < 50; ++$i) {
            $frames .= TestClient::frame(0x1, (string) $i);
        }
        $client->sendRaw($frames);
        $this->runUntil(static fn(): bool => $handler->sockets !== [] && $handler->sockets[0]->pendingMessages() >= 3);
        $this->runFor(0.2);
        $pending = $handler->sockets[0]->pendingMessages();
        self::assertGreaterThan(0, $pending);
        self::assertLessThanOrEqual(4, $pending, 'reading stopped at the bound');
        self::assertSame(['open', 'message text 0'], $handler->eventsOf($handler->sockets[0]));

        $gate->resolve(null);
        for ($i = 0; $i < 50; ++$i) {
            self::assertSame((string) $i, $client->nextDataOrClose()?->payload, "message {$i}");
        }
    }

    public function testAClosedConnectionLeavesNothingBehind(): void
    {
        $handler = new RecordingHandler();
        $this->app->websocket('/ws', $handler);
        $this->serve();
        $cycle = function () use ($handler): void {
            $client = TestClient::connect($this->loop, (string) $this->server?->address(), [], '/ws');
            $client->sendText('x');
            $client->nextDataOrClose();
            $client->sendClose();
            $client->awaitClose();
            $client->close();
            $handler->events = $handler->sockets = [];
        };
        for ($i = 0; $i < 200; ++$i) {
            $cycle(); // warm up: tables, caches and pools grow to their size
        }
        $server = $this->server;
        \assert($server !== null);
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
        gc_collect_cycles();
        $before = memory_get_usage();
        for ($i = 0; $i < 200; ++$i) {
            $cycle();
        }
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
        gc_collect_cycles();

        self::assertLessThan(32 * 1024, memory_get_usage() - $before, '200 more connections opened and closed leave (almost) nothing behind: a leak of 160 bytes each would show');
    }
}
