<?php

declare(strict_types=1);

namespace Nexus\Demo\Chat;

use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketHandler;

/**
 * GET /ws/echo: every message comes back as it came, text as text and binary as binary. One
 * object serves every connection.
 */
final class EchoHandler implements WebSocketHandler
{
    public function onOpen(WebSocket $socket): void {}

    public function onMessage(WebSocket $socket, string $payload, bool $binary): void
    {
        $socket->send($payload, $binary);
    }

    public function onClose(WebSocket $socket, int $code, string $reason): void {}
}
