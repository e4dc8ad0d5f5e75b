<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * What a WebSocket route runs for each of its connections (Application::websocket()).
 *
 * The callbacks of one connection run on the actor scheduler, one at a time and in this order:
 * onOpen() once, onMessage() for each message in the order received, onClose() once. Each may
 * wait (ask an actor and await the answer, send at the unsent-bytes cap): that connection's next
 * callback waits for it, every other connection goes on. A callback that throws, or runs out of
 * WebSocketOptions::$handlerTimeout, closes its connection with 1011 and gets no more messages;
 * onClose() still runs. Once the connection has closed, onClose() runs after the messages that
 * arrived before the close, and nothing more.
 *
 * One handler object may serve every connection of a route (keep per-connection state in
 * WebSocket::$attributes), or a route's factory may make one per connection.
 */
interface WebSocketHandler
{
    public function onOpen(WebSocket $socket): void;

    /**
     * @param bool $binary true for a binary message, false for text (valid UTF-8)
     */
    public function onMessage(WebSocket $socket, string $payload, bool $binary): void;

    /**
     * @param int $code the peer's close code (1005 when it gave none), the code this side closed
     *                  with, or 1006 when the connection ended without a close frame
     */
    public function onClose(WebSocket $socket, int $code, string $reason): void;
}
