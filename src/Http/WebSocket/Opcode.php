<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * The frame opcodes of RFC 6455 §5.2. The others (3-7, 11-15) are reserved: a frame carrying one
 * fails the connection with 1002.
 */
enum Opcode: int
{
    case Continuation = 0x0;
    case Text = 0x1;
    case Binary = 0x2;
    case Close = 0x8;
    case Ping = 0x9;
    case Pong = 0xA;

    /** Control frames (close, ping, pong) carry at most 125 bytes and are never fragmented. */
    public function isControl(): bool
    {
        return $this->value >= 0x8;
    }
}
