<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

/**
 * Turns a batch of messages into bytes for another worker and back.
 *
 * A batch is a list: the class table first (the registered class names when the batch holds an
 * object, else an empty list), then the messages as BatchLayout lays them out (path and message
 * for each, the sender once per run of messages from it).
 * Each encoded batch says which wire format it uses (one byte on the frame), so that a codec can
 * choose per batch.
 */
interface MessageCodec
{
    /** igbinary, checked by IgbinaryGuard before it is decoded. */
    public const IGBINARY = 3;
    /** serialize(), decoded with allowed_classes and max_depth. */
    public const NATIVE = 4;
    /**
     * A batch of ints and strings only (ScalarBatch: a small one, or a large one of strings),
     * written by either codec and read by both. A worker of a version before it refuses it as
     * of an unknown format, like 3 and 4.
     */
    public const SCALARS = 6;
    /**
     * SCALARS as written before short ints had a marker of their own: still read, never
     * written (the reload that brings format 6 in loses nothing the old workers send).
     */
    public const FORMER_SCALARS = 5;
    /**
     * igbinary and serialize() batches with four values per message, as workers wrote them
     * before BatchLayout: still read (BatchLayout::fromFormer()), so that the reload that brings
     * this version in loses nothing the old workers send or hand off to the new ones; never
     * written. A worker of the former version refuses batches of formats 3 and 4 as of an
     * unknown format (the link closes with that error), rather than misreading them.
     */
    public const FORMER_IGBINARY = 1;
    public const FORMER_NATIVE = 2;

    /**
     * @param list<mixed> $batch
     * @param int         $objects what MessageClasses::check() found in its messages: 0, or OBJECTS
     *                             (the class table is then filled), with CUSTOM
     * @param-out int     $format  the wire format used
     */
    public function encode(array $batch, int $objects, ?int &$format): string;

    /**
     * @return list<mixed>
     *
     * @throws \Nexus\Worker\Exception\FrameException when the bytes are not a batch, or not one this worker may decode
     */
    public function decode(int $format, string $bytes): array;

    /**
     * The class names to put first in a batch that holds objects.
     *
     * @return list<string>
     */
    public function classTable(): array;

    public function name(): string;
}
