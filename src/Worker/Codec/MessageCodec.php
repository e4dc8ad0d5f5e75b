<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

/**
 * Turns a batch of messages into bytes for another worker and back.
 */
interface MessageCodec
{
    /**
     * @param list<mixed> $batch
     */
    public function encode(array $batch): string;

    /**
     * @return list<mixed>
     *
     * @throws \Nexus\Worker\Exception\FrameException when the bytes are not a batch
     */
    public function decode(string $bytes): array;

    public function name(): string;
}
