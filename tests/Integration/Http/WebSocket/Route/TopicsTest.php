<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket\Route;

use Nexus\Http\WebSocket\Exception\InvalidUtf8Exception;
use Nexus\Http\WebSocket\OverflowPolicy;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\Topic\InvalidTopicException;
use Nexus\Worker\Topic\TooManyTopicsException;
use Nexus\Worker\Topics;
use Nexus\Worker\Workers;

/**
 * Topics in one process (a pool of one; TopicsAcrossWorkersTest runs two workers): a publish
 * reaches every subscriber, the publisher included, in the same order for all; a closed
 * connection leaves its topics; an idle room actor is stopped and starts again; a subscriber
 * that does not read neither holds up the others nor makes memory grow; the bounds.
 */
final class TopicsTest extends RouteTestCase
{
    private Topics $topics;
    /** @var list<WebSocket> */
    private array $sockets = [];

    protected function setUp(): void
    {
        parent::setUp();
        $this->topics = new Topics($this->system, Workers::single($this->system), 'rooms', roomIdleTimeout: 0.3, maxTopicsPerSocket: 3, maxPayload: 1000);
    }

    public function testAPublishReachesEverySubscriberOfTheTopicThePublisherIncluded(): void
    {
        $this->chatRoute();
        $this->serve();

        $a = [$this->open('/chat/a'), $this->open('/chat/a'), $this->open('/chat/a')];
        $b = $this->open('/chat/b');
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('a') === 3 && $this->topics->subscriberCount('b') === 1);

        $a[1]->sendText('hello a');
        foreach ($a as $i => $client) {
            self::assertSame('hello a', $client->nextDataOrClose()?->payload, "subscriber {$i} of a");
        }
        $b->sendText('hello b');
        self::assertSame('hello b', $b->nextDataOrClose()?->payload, 'b got nothing of a: its first message is its own');
        self::assertSame(4, $this->topics->delivered());
    }

    public function testEverySubscriberSeesATopicsMessagesInTheSameOrder(): void
    {
        $this->chatRoute();
        $this->serve();

        $clients = [$this->open('/chat/a'), $this->open('/chat/a'), $this->open('/chat/a')];
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('a') === 3);
        foreach ($clients as $i => $client) {
            $frames = '';
            for ($n = 0; $n < 20; ++$n) {
                $frames .= TestClient::frame(0x1, "{$i}.{$n}");
            }
            $client->sendRaw($frames);
        }
        $seen = [];
        foreach ($clients as $i => $client) {
            for ($n = 0; $n < 60; ++$n) {
                $seen[$i][] = $client->nextDataOrClose()?->payload;
            }
        }
        self::assertSame($seen[0], $seen[1]);
        self::assertSame($seen[0], $seen[2]);
        foreach ([0, 1, 2] as $i) {
            $own = array_values(array_filter($seen[0], static fn(?string $m): bool => str_starts_with((string) $m, "{$i}.")));
            self::assertSame(array_map(static fn(int $n): string => "{$i}.{$n}", range(0, 19)), $own, "the messages of publisher {$i} in the order sent");
        }
    }

    public function testAClosedConnectionLeavesItsTopics(): void
    {
        $this->chatRoute();
        $this->serve();

        $leaving = $this->open('/chat/a');
        $staying = $this->open('/chat/a');
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('a') === 2);
        $leaving->sendClose();
        $leaving->awaitClose();
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('a') === 1);
        $staying->sendText('still here');
        self::assertSame('still here', $staying->nextDataOrClose()?->payload);
    }

    public function testAnIdleRoomActorIsStoppedAndStartsAgainWithTheNextMessage(): void
    {
        $this->chatRoute();
        $this->serve();

        $client = $this->open('/chat/lobby');
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('lobby') === 1);
        $client->sendText('one');
        self::assertSame('one', $client->nextDataOrClose()?->payload);
        self::assertNotNull($this->system->lookup('/user/rooms/lobby'), 'the room actor runs');

        $system = $this->system;
        $this->pollUntil(static function () use ($system): bool {
            return $system->lookup('/user/rooms/lobby') === null;
        }, 10.0);
        self::assertSame(1, $this->topics->subscriberCount('lobby'), 'the subscribers stay');
        $client->sendText('two');
        self::assertSame('two', $client->nextDataOrClose()?->payload, 'the next message starts the room again');
    }

    public function testASubscriberThatDoesNotReadHoldsUpNobodyAndItsBytesStayBounded(): void
    {
        $cap = 65_536;
        $this->chatRoute(new WebSocketOptions(maxUnsentBytes: $cap, overflowPolicy: OverflowPolicy::Drop));
        $this->serve();

        $stalled = $this->open('/chat/a');
        $reader = $this->open('/chat/a');
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('a') === 2);
        $stalled->connection->pause();
        $payload = str_repeat('x', 900);
        $total = 6000; // 5.4 MB: more than loopback's buffers hold for the stalled one
        for ($i = 0; $i < $total; ++$i) {
            $this->topics->publish('a', $payload);
            if ($i % 100 === 99) {
                for ($n = 0; $n < 100; ++$n) {
                    self::assertSame($payload, $reader->nextDataOrClose()?->payload, "message {$i} reached the reader");
                }
            }
        }
        $stalledSocket = $this->sockets[0];
        self::assertGreaterThan(0, $stalledSocket->droppedMessages(), 'the stalled subscriber had messages dropped (counted)');
        self::assertLessThanOrEqual($cap + 65_536 + 900 + 64 * 4, $stalledSocket->unsentBytes(), 'at most the cap plus one write of the hub (64 KiB and a message)');
        self::assertTrue($stalledSocket->isOpen());
    }

    public function testTheBounds(): void
    {
        $this->chatRoute();
        $this->serve();
        $this->open('/chat/a');
        $this->runUntil(fn(): bool => $this->topics->subscriberCount('a') === 1);
        $socket = $this->sockets[0];

        foreach (['', 'a/b', '$system', str_repeat('t', Topics::MAX_TOPIC_LENGTH + 1)] as $topic) {
            try {
                $this->topics->publish($topic, 'x');
                self::fail("'{$topic}' was taken as a topic");
            } catch (InvalidTopicException $e) {
                self::assertStringContainsString('cannot name a topic', $e->getMessage());
            }
        }
        $this->topics->subscribe('b', $socket);
        $this->topics->subscribe('c', $socket);
        $this->topics->subscribe('c', $socket); // again: nothing changes
        try {
            $this->topics->subscribe('d', $socket);
            self::fail('a fourth topic was taken');
        } catch (TooManyTopicsException $e) {
            self::assertStringContainsString('already subscribed to 3 topics', $e->getMessage());
        }
        $this->topics->unsubscribe('b', $socket);
        $this->topics->subscribe('d', $socket);
        self::assertSame([0, 1, 1], [$this->topics->subscriberCount('b'), $this->topics->subscriberCount('c'), $this->topics->subscriberCount('d')]);

        $this->expectException(MessageTooLargeException::class);
        try {
            $this->topics->publish('a', "\xC3\x28");
            self::fail('invalid UTF-8 was published as text');
        } catch (InvalidUtf8Exception) {
        }
        $this->topics->publish('a', str_repeat('x', 1001));
    }

    /**
     * GET /chat/{room}: each connection joins the topic of its room; what it sends is published
     * there. The server-side WebSockets go to $this->sockets as they open.
     */
    private function chatRoute(WebSocketOptions $options = new WebSocketOptions()): void
    {
        $topics = $this->topics;
        $this->app->websocket('/chat/{room}', fn(string $room): RecordingHandler => new RecordingHandler(
            static function (WebSocket $socket, string $payload) use ($topics, $room): void {
                $topics->publish($room, $payload);
            },
            function (WebSocket $socket) use ($topics, $room): void {
                $this->sockets[] = $socket;
                $topics->subscribe($room, $socket);
            },
        ), $options);
    }
}
