<?php

declare(strict_types=1);

namespace Nexus\Tests\Support\WebSocket;

/**
 * A frame as the test client saw it on the wire.
 */
final readonly class TestFrame
{
    public function __construct(
        public int $opcode,
        public bool $fin,
        public int $rsv,
        public bool $masked,
        public string $payload,
    ) {}

    /**
     * The close code of a close frame (1005 when it has none).
     */
    public function closeCode(): int
    {
        if (\strlen($this->payload) < 2) {
            return 1005;
        }
        /** @var array{1: int} $code */
        $code = unpack('n', $this->payload);

        return $code[1];
    }

    public function closeReason(): string
    {
        return substr($this->payload, 2);
    }
}
