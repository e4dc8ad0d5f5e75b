<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Worker\Exception\FrameException;

/**
 * serialize()/unserialize(), with unserialize limited to the registered message classes (an
 * object of any other class arrives as __PHP_Incomplete_Class, whose code is never run) and to
 * MAX_DEPTH levels of nesting.
 */
final class NativeCodec implements MessageCodec
{
    /** Nesting unserialize() accepts: far above what a sender lets through (MessageClasses::MAX_DEPTH). */
    public const MAX_DEPTH = 256;

    public function __construct(private readonly MessageClasses $classes) {}

    public function encode(array $batch, int $objects, ?int &$format): string
    {
        if ($objects === 0) {
            $bytes = ScalarBatch::encode($batch);
            if ($bytes !== null) {
                $format = self::SCALARS;

                return $bytes;
            }
        }
        $format = self::NATIVE;

        return serialize($batch);
    }

    public function decode(int $format, string $bytes): array
    {
        if ($format === self::SCALARS || $format === self::FORMER_SCALARS) {
            return ScalarBatch::decode($bytes, $format === self::SCALARS);
        }
        if ($format === self::IGBINARY || $format === self::FORMER_IGBINARY) {
            throw new FrameException('An igbinary batch reached a worker that decodes only serialize(): run all workers with the same extensions.');
        }
        if ($format !== self::NATIVE && $format !== self::FORMER_NATIVE) {
            throw new FrameException("Unknown batch format {$format}: do all workers run the same version?");
        }
        $batch = @unserialize($bytes, ['allowed_classes' => $this->classes->all(), 'max_depth' => self::MAX_DEPTH]);
        if (!\is_array($batch) || !array_is_list($batch) || !\is_array($batch[0] ?? null)) {
            throw new FrameException('A batch from another worker could not be decoded with unserialize(): do all workers run the same code?');
        }

        return $format === self::NATIVE ? $batch : BatchLayout::fromFormer($batch);
    }

    public function classTable(): array
    {
        return $this->classes->all();
    }

    public function name(): string
    {
        return 'serialize';
    }
}
