<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Worker\Exception\FrameException;

/**
 * serialize()/unserialize(), with unserialize limited to the registered message classes: an
 * object of any other class arrives as __PHP_Incomplete_Class, never as that class.
 */
final class NativeCodec implements MessageCodec
{
    public function __construct(private readonly MessageClasses $classes) {}

    public function encode(array $batch): string
    {
        return serialize($batch);
    }

    public function decode(string $bytes): array
    {
        $batch = @unserialize($bytes, ['allowed_classes' => $this->classes->all()]);
        if (!\is_array($batch) || !array_is_list($batch)) {
            throw new FrameException('A batch from another worker could not be decoded with unserialize(): do all workers run the same code?');
        }

        return $batch;
    }

    public function name(): string
    {
        return 'serialize';
    }
}
