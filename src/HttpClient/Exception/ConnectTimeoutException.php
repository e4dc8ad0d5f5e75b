<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * Opening the connection (TCP connect and the TLS handshake) took longer than the connect timeout.
 */
final class ConnectTimeoutException extends TimeoutException
{
    public function __construct(float $seconds, string $message)
    {
        parent::__construct(TimeoutKind::Connect, $seconds, $message);
    }
}
