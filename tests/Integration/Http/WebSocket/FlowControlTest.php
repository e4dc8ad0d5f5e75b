<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Io\SocketPair;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * pause() and resume(): a consumer that lags stops the flow of messages without losing any,
 * even those already read from the socket.
 */
final class FlowControlTest extends WebSocketTestCase
{
    /** @var list<string> */
    private array $received = [];

    public function testPausedConnectionDeliversNothingUntilResumedThenEverythingInOrder(): void
    {
        $this->serve(function (WebSocketConnection $ws): void {
            $ws->onMessage(function (string $payload) use ($ws): void {
                $this->received[] = $payload;
                if ($payload === 'pause after me') {
                    $ws->pause();
                }
            });
        });
        $client = $this->open();
        // All in one write: the rest is already in the server's buffer when it pauses.
        $client->sendRaw(
            TestClient::frame(0x1, 'pause after me')
            . TestClient::frame(0x1, 'one')
            . TestClient::frame(0x1, 'two'),
        );
        $this->runUntil(fn(): bool => $this->received !== []);
        $client->sendText('three');
        $this->runFor(0.2);
        self::assertSame(['pause after me'], $this->received, 'nothing is delivered while paused');

        $this->lastServerConnection()->resume();
        $this->runUntil(fn(): bool => $this->receivedCount() === 4);
        self::assertSame(['pause after me', 'one', 'two', 'three'], $this->received);
    }

    private function receivedCount(): int
    {
        return \count($this->received);
    }

    public function testStartNeedsAMessageHandler(): void
    {
        [$ours, $theirs] = SocketPair::create($this->loop);
        $ws = new WebSocketConnection($this->loop, $ours);
        try {
            $this->expectException(\LogicException::class);
            $this->expectExceptionMessage('onMessage');
            $ws->start();
        } finally {
            $ours->close();
            $theirs->close();
        }
    }
}
