<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * Which of the client's timeouts fired.
 */
enum TimeoutKind: string
{
    /** Opening the connection (TCP connect and TLS handshake). */
    case Connect = 'connect';
    /** From the request being fully sent to the whole response head arriving. */
    case Head = 'head';
    /** No byte sent or received for that long while writing the request or reading the body. */
    case Idle = 'idle';
    /** The whole request: waiting for a connection, sending, and receiving the complete body. */
    case Total = 'total';
}
