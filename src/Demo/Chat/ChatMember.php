<?php

declare(strict_types=1);

namespace Nexus\Demo\Chat;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketHandler;
use Nexus\Worker\Topics;

/**
 * One browser in a chat room (GET /ws/chat/{room}): it joins the room's topic when it opens, and
 * each text message it sends goes to everybody in the room, itself included, on every worker.
 * Binary messages are refused with 1003.
 */
final class ChatMember implements WebSocketHandler
{
    public function __construct(
        private readonly Topics $topics,
        private readonly string $room,
    ) {}

    public function onOpen(WebSocket $socket): void
    {
        $this->topics->subscribe($this->room, $socket);
    }

    public function onMessage(WebSocket $socket, string $payload, bool $binary): void
    {
        if ($binary) {
            $socket->close(CloseCode::UNSUPPORTED_DATA, 'this chat takes text messages only');

            return;
        }
        $this->topics->publish($this->room, $payload);
    }

    public function onClose(WebSocket $socket, int $code, string $reason): void {}
}
