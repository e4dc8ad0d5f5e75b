<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * What became of a message handed to WebSocketConnection::send().
 */
enum SendResult
{
    /** Queued on the socket; it goes out in order with the messages before it. */
    case Sent;
    /** Not sent: the unsent-bytes cap was reached and the policy is OverflowPolicy::Drop (counted). */
    case Dropped;
    /** Not sent: the connection is closing or closed (or was closed with 1008 by this very send). */
    case Closed;
}
