<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * The handshake's answers as a client sees them on the wire (Handshake is unit-tested in detail
 * in tests/Unit/Http/WebSocket/HandshakeTest.php).
 */
final class HandshakeOverSocketTest extends WebSocketTestCase
{
    public function testAcceptedHandshake(): void
    {
        $this->echoServer(new WebSocketOptions(subprotocols: ['chat.v2', 'chat.v1']));
        $key = base64_encode(random_bytes(16));
        $client = $this->connect([
            'Sec-WebSocket-Key' => $key,
            'Sec-WebSocket-Protocol' => 'chat.v1, chat.v2',
            'Sec-WebSocket-Extensions' => 'x-unknown; a=1, permessage-deflate; client_max_window_bits',
        ]);

        self::assertSame(101, $client->status);
        self::assertSame('websocket', $client->header('upgrade'));
        self::assertSame('Upgrade', $client->header('connection'));
        self::assertSame(TestClient::expectedAccept($key), $client->header('sec-websocket-accept'));
        self::assertSame('chat.v2', $client->header('sec-websocket-protocol'), 'the server\'s preference wins');
        self::assertSame('permessage-deflate', $client->header('sec-websocket-extensions'));
        self::assertNull($client->header('content-length'));
        $ws = $this->lastServerConnection();
        self::assertSame('chat.v2', $ws->subprotocol());
        self::assertTrue($ws->isCompressed());
    }

    public function testPlainGetGets426WithUpgradeWebsocket(): void
    {
        $this->echoServer();
        $client = $this->connect(['Upgrade' => null, 'Connection' => null, 'Sec-WebSocket-Key' => null, 'Sec-WebSocket-Version' => null]);

        self::assertSame(426, $client->status);
        self::assertSame('websocket', $client->header('upgrade'));
        $client->awaitEof();
        self::assertStringContainsString('WebSocket', $client->body);
    }

    public function testWrongVersionGets426WithTheVersionSpoken(): void
    {
        $this->echoServer();
        $client = $this->connect(['Sec-WebSocket-Version' => '8']);

        self::assertSame(426, $client->status);
        self::assertSame('13', $client->header('sec-websocket-version'));
    }

    public function testBadKeyGets400(): void
    {
        $this->echoServer();
        $client = $this->connect(['Sec-WebSocket-Key' => base64_encode(random_bytes(15))]);

        self::assertSame(400, $client->status);
        $client->awaitEof();
        self::assertStringContainsString('Sec-WebSocket-Key', $client->body);
    }

    public function testOriginOutsideTheAllowlistGets403(): void
    {
        $opened = 0;
        $this->serve(static function (WebSocketConnection $ws) use (&$opened): void {
            ++$opened;
            $ws->onMessage(static function (): void {});
        }, new WebSocketOptions(allowedOrigins: ['https://app.example.com']));

        self::assertSame(403, $this->connect(['Origin' => 'https://evil.example.net'])->status);
        self::assertSame(101, $this->connect(['Origin' => 'https://APP.example.com'])->status);
        self::assertSame(1, $opened);
    }
}
