<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Worker\Exception\FrameException;

/**
 * igbinary: smaller and faster than serialize(). It has no allowed-classes option, so it is only
 * fed batches from authenticated workers of this pool, whose senders checked every object against
 * MessageClasses before encoding.
 */
final class IgbinaryCodec implements MessageCodec
{
    public function encode(array $batch): string
    {
        return (string) igbinary_serialize($batch);
    }

    public function decode(string $bytes): array
    {
        $batch = @igbinary_unserialize($bytes);
        if (!\is_array($batch) || !array_is_list($batch)) {
            throw new FrameException('A batch from another worker could not be decoded with igbinary: do all workers run the same code and extensions?');
        }

        return $batch;
    }

    public function name(): string
    {
        return 'igbinary';
    }
}
