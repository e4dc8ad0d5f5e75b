<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * One decoded frame: its payload is already unmasked. The decoder has checked everything a single
 * frame can get wrong; whether it fits the message in progress is the connection's business.
 */
final readonly class Frame
{
    public function __construct(
        public int $opcode,
        public bool $fin,
        public bool $rsv1,
        public string $payload,
    ) {}
}
