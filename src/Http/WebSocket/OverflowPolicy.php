<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * What a send does when the connection already holds WebSocketOptions::$maxUnsentBytes unsent
 * bytes and the sender cannot wait (it runs outside a fiber, or it waited sendTimeout seconds).
 */
enum OverflowPolicy
{
    /** The message is not sent; WebSocketConnection::droppedMessages() counts it. */
    case Drop;
    /** The connection is closed with 1008 (policy violation): a client that does not read is cut off. */
    case Close;
}
