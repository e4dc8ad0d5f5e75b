<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Exception;

/**
 * A handshake request that cannot be accepted; status is the HTTP status to answer with and the
 * message says what the client must change.
 */
final class HandshakeException extends WebSocketException
{
    public function __construct(public readonly int $status, string $message)
    {
        parent::__construct($message);
    }
}
