<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Exception;

/**
 * The peer broke RFC 6455 or RFC 7692, or a limit: the connection is failed with closeCode
 * (1002 protocol error, 1007 invalid payload data, 1009 message too big) and the message as reason.
 */
final class ProtocolException extends WebSocketException
{
    public function __construct(public readonly int $closeCode, string $message)
    {
        parent::__construct($message);
    }
}
