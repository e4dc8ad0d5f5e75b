<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\OverflowPolicy;
use Nexus\Http\WebSocket\SendResult;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * A client that stops reading: the server's unsent bytes stay under the cap, a sender in a fiber
 * waits for the drain, other senders get the policy (drop with a counter, or close with 1008),
 * and every message reported Sent does arrive, in order.
 */
final class BackpressureTest extends WebSocketTestCase
{
    private const CAP = 131_072;
    private const MESSAGE = 16_384;
    /** Far more than loopback's socket buffers can hold. */
    private const ENOUGH = 64 * 1_048_576;

    public function testDropPolicyDropsAndCountsAndMemoryStaysBounded(): void
    {
        [$client, $ws] = $this->stalledPair(OverflowPolicy::Drop);

        $sent = $this->sendUntilRefused($ws, SendResult::Dropped);
        self::assertLessThanOrEqual(self::CAP + self::MESSAGE + 14, $ws->unsentBytes(), 'at most the cap plus one message is held');
        for ($i = 0; $i < 10; ++$i) {
            self::assertSame(SendResult::Dropped, $ws->sendBinary($this->message(-1)));
        }
        self::assertSame(11, $ws->droppedMessages());
        self::assertSame(11 * self::MESSAGE, $ws->droppedBytes());
        self::assertTrue($ws->isOpen());

        // The client reads again: every message reported Sent arrives, in order; no dropped one.
        $client->connection->resume();
        for ($i = 0; $i < $sent; ++$i) {
            self::assertSame($i, $this->sequence($client->nextFrame()), "message {$i}");
        }
        self::assertSame(SendResult::Sent, $ws->sendBinary($this->message($sent)), 'drained: sending works again');
        self::assertSame($sent, $this->sequence($client->nextFrame()));
    }

    public function testClosePolicyClosesWith1008(): void
    {
        $closed = null;
        [$client, $ws] = $this->stalledPair(OverflowPolicy::Close);
        $ws->onClose(static function (int $code) use (&$closed): void {
            $closed = $code;
        });

        $sent = $this->sendUntilRefused($ws, SendResult::Closed);
        self::assertFalse($ws->isOpen());

        $client->connection->resume();
        for ($i = 0; $i < $sent; ++$i) {
            self::assertSame($i, $this->sequence($client->nextFrame()), "message {$i}");
        }
        $close = $client->nextFrame();
        self::assertSame(CloseCode::POLICY_VIOLATION, $close?->closeCode());
        $client->sendClose(CloseCode::POLICY_VIOLATION);
        $client->awaitEof();
        self::assertSame(CloseCode::POLICY_VIOLATION, $closed);
    }

    public function testSenderInAFiberWaitsForTheDrainAndNothingIsDropped(): void
    {
        [$client, $ws] = $this->stalledPair(OverflowPolicy::Drop);
        $total = 2000; // 32 MB: more than the socket buffers and the cap together
        $results = [];
        $producer = $this->loop->async(function () use ($ws, $total, &$results): void {
            for ($i = 0; $i < $total; ++$i) {
                $results[] = $ws->sendBinary($this->message($i));
            }
        });

        $this->runUntil(static fn(): bool => $ws->unsentBytes() >= self::CAP);
        self::assertFalse($producer->isSettled(), 'the producer waits while the client does not read');
        self::assertLessThanOrEqual(self::CAP + self::MESSAGE + 14, $ws->unsentBytes());

        $client->connection->resume();
        for ($i = 0; $i < $total; ++$i) {
            self::assertSame($i, $this->sequence($client->nextFrame()), "message {$i}");
        }
        $producer->await(10.0);
        self::assertSame(array_fill(0, $total, SendResult::Sent), $results);
        self::assertSame(0, $ws->droppedMessages());
    }

    public function testSenderInAFiberGivesUpAfterTheSendTimeout(): void
    {
        [, $ws] = $this->stalledPair(OverflowPolicy::Drop, sendTimeout: 0.2);
        $this->sendUntilRefused($ws, SendResult::Dropped);

        $result = $this->loop->async(fn(): SendResult => $ws->sendBinary($this->message(-1)))->await(10.0);

        self::assertSame(SendResult::Dropped, $result);
        self::assertSame(2, $ws->droppedMessages());
    }

    public function testWaitingSenderIsReleasedWhenTheConnectionCloses(): void
    {
        [$client, $ws] = $this->stalledPair(OverflowPolicy::Drop);
        $this->sendUntilRefused($ws, SendResult::Dropped);
        $waiting = $this->loop->async(fn(): SendResult => $ws->sendBinary($this->message(-1)));
        $this->runUntil(static fn(): bool => true);

        $client->close();

        self::assertSame(SendResult::Closed, $waiting->await(10.0));
    }

    public function testServerStopsReadingFromAClientThatDoesNotRead(): void
    {
        [$client, $ws] = $this->stalledPair(OverflowPolicy::Drop);
        $this->sendUntilRefused($ws, SendResult::Dropped);
        $held = $ws->unsentBytes();

        // 8 MB of pings, each of which would add a pong to the unread queue: more than the
        // socket buffers take, so the client is left holding bytes the server does not read.
        $pings = str_repeat(TestClient::frame(0x9, str_repeat('p', 125)), 60_000);
        $client->sendRaw($pings);
        $this->runFor(0.3);

        self::assertGreaterThan(0, $client->connection->bufferedBytes(), 'the server stopped reading from the client');
        self::assertLessThanOrEqual($held + 1024, $ws->unsentBytes(), 'no pongs pile up');
        self::assertTrue($ws->isOpen());
    }

    /**
     * A server connection with a small cap, and a client that has stopped reading.
     *
     * @return array{TestClient, WebSocketConnection}
     */
    private function stalledPair(OverflowPolicy $policy, float $sendTimeout = 10.0): array
    {
        $this->serve(static function (WebSocketConnection $ws): void {
            $ws->onMessage(static function (): void {});
        }, new WebSocketOptions(maxUnsentBytes: self::CAP, overflowPolicy: $policy, sendTimeout: $sendTimeout, deflate: null));
        $client = $this->open();
        $client->connection->pause();

        return [$client, $this->lastServerConnection()];
    }

    /**
     * Sends numbered messages until one gets $refusal; returns how many were Sent.
     */
    private function sendUntilRefused(WebSocketConnection $ws, SendResult $refusal): int
    {
        for ($i = 0; $i * self::MESSAGE < self::ENOUGH; ++$i) {
            $result = $ws->sendBinary($this->message($i));
            if ($result !== SendResult::Sent) {
                self::assertSame($refusal, $result);

                return $i;
            }
        }
        self::fail('The cap was never reached.');
    }

    private function message(int $sequence): string
    {
        return str_pad((string) $sequence, self::MESSAGE, '.');
    }

    private function sequence(?\Nexus\Tests\Support\WebSocket\TestFrame $frame): int
    {
        self::assertNotNull($frame);
        self::assertSame(self::MESSAGE, \strlen($frame->payload));

        return (int) rtrim($frame->payload, '.');
    }
}
