<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Worker\Exception\FrameException;

/**
 * igbinary: smaller and faster than serialize(), made safe by IgbinaryGuard, which every batch
 * must pass before igbinary_unserialize() sees it.
 *
 * The sender runs the guard on what it encoded whenever the batch could fail it: an object whose
 * class writes itself (an enum, __serialize, Serializable, an internal class, one beyond the first
 * 255 registered), 64 KiB or more (a string with a 32-bit length), many arrays. A batch that
 * fails is sent with serialize() instead (format NATIVE), which the receiver decodes with
 * allowed_classes. Anything else is known to pass (objects of plain registered classes are
 * written as numbers into the class table), so the sender skips the check.
 */
final class IgbinaryCodec implements MessageCodec
{
    /** Below this size an object-free batch holds no string igbinary writes with a 32-bit length. */
    private const CHECKED_FROM = 65_536;

    private readonly IgbinaryGuard $guard;
    private readonly NativeCodec $native;
    /** @var list<string> */
    private array $table = [];
    private int $tableVersion = -1;

    public function __construct(private readonly MessageClasses $classes)
    {
        $this->guard = new IgbinaryGuard($classes);
        $this->native = new NativeCodec($classes);
        // Class names are written once and referred to by number only while strings are compacted.
        ini_set('igbinary.compact_strings', '1');
    }

    public function encode(array $batch, int $objects, ?int &$format): string
    {
        if ($objects === 0) {
            $bytes = ScalarBatch::encode($batch);
            if ($bytes !== null) {
                $format = self::SCALARS;

                return $bytes;
            }
        }
        $bytes = (string) igbinary_serialize($batch);
        $length = \strlen($bytes);
        if (($objects & MessageClasses::CUSTOM) !== 0 || $length >= self::CHECKED_FROM || ($length > 2 * IgbinaryGuard::MAX_ARRAYS && IgbinaryGuard::arrayBytes($bytes) > IgbinaryGuard::MAX_ARRAYS)) {
            if (!$this->guard->accepts($bytes)) {
                return $this->native->encode($batch, $objects, $format);
            }
        }
        $format = self::IGBINARY;

        return $bytes;
    }

    public function decode(int $format, string $bytes): array
    {
        if ($format === self::SCALARS || $format === self::FORMER_SCALARS) {
            return ScalarBatch::decode($bytes, $format === self::SCALARS);
        }
        if ($format === self::NATIVE || $format === self::FORMER_NATIVE) {
            return $this->native->decode($format, $bytes);
        }
        if ($format !== self::IGBINARY && $format !== self::FORMER_IGBINARY) {
            throw new FrameException("Unknown batch format {$format}: do all workers run the same version?");
        }
        if (!$this->guard->accepts($bytes)) {
            throw new FrameException('A batch from another worker holds an object of a class not registered here, an unknown igbinary type or too many arrays: register the same message classes on every worker.');
        }
        $batch = @igbinary_unserialize($bytes);
        if (!\is_array($batch) || !array_is_list($batch) || !\is_array($batch[0] ?? null)) {
            throw new FrameException('A batch from another worker could not be decoded with igbinary: do all workers run the same code and extensions?');
        }

        return $format === self::IGBINARY ? $batch : BatchLayout::fromFormer($batch);
    }

    public function classTable(): array
    {
        if ($this->tableVersion !== $this->classes->version()) {
            $this->tableVersion = $this->classes->version();
            $names = array_filter($this->classes->all(), static fn(string $name): bool => \strlen($name) < 256);
            $this->table = \array_slice(array_values($names), 0, IgbinaryGuard::MAX_TABLE);
        }

        return $this->table;
    }

    public function name(): string
    {
        return 'igbinary';
    }
}
