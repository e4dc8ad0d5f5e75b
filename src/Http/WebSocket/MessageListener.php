<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * The receiver of one WebSocketConnection's messages and of its close, as one object (see
 * WebSocketConnection::listen()): an owner that keeps an object per connection anyway spends no
 * closure on it. Both run on the loop, outside any fiber, under the same rules as the onMessage()
 * and onClose() callbacks.
 */
interface MessageListener
{
    public function onMessage(string $payload, bool $binary): void;

    /**
     * Called once, with the close code and reason (see WebSocketConnection::onClose()).
     */
    public function onClose(int $code, string $reason): void;
}
