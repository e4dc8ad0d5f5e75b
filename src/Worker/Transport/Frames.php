<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Worker\Exception\FrameException;

/**
 * Splits a byte stream into frames (see FrameType) and builds frames.
 *
 * Bounds: a frame whose header announces more than the current limit (limit()) is refused as soon
 * as its 5-byte header is read, before any of its payload is buffered; a link starts with the
 * limit of a handshake and is raised only once the peer has proved it belongs to the pool. Bytes
 * are appended in place and frames are read at an offset into the buffer; once a frame's header
 * says how long it is, nothing is parsed or copied until all of it has arrived, so a frame read
 * in n chunks costs O(frame size), not O(n * frame size).
 */
final class Frames
{
    public const HEADER = 5;
    /** The largest frame any link accepts: a batch is split well below this (see PeerLink). */
    public const MAX_PAYLOAD = 16 * 1024 * 1024;
    /** The largest frame an unauthenticated peer may send: a handshake is far smaller. */
    public const HANDSHAKE_PAYLOAD = 512;

    /** A batch frame's payload before its encoded batch: the 8-byte sequence number and the format byte. */
    public const BATCH_HEAD = 9;

    /** The sequence number of the batch nextBatch() returned last, as sent: 8 bytes, big-endian. */
    public string $sequence = '';
    /** The wire format of the batch nextBatch() returned last (see MessageCodec). */
    public int $format = 0;
    private string $buffer = '';
    private int $offset = 0;
    /** Bytes needed before the next frame is complete (0: unknown, parse the header). */
    private int $needed = 0;

    public function __construct(private int $limit = self::MAX_PAYLOAD) {}

    public static function encode(FrameType $type, string $payload): string
    {
        return pack('NC', \strlen($payload), $type->value) . $payload;
    }

    /**
     * The 8-byte big-endian sequence number at the start of a Batch or Ack payload.
     */
    public static function sequence(string $payload): int
    {
        $value = \strlen($payload) >= 8 ? unpack('J', $payload) : false;
        if ($value === false || !\is_int($value[1] ?? null)) {
            throw new FrameException('A frame is too short to hold its 8-byte sequence number.');
        }

        return $value[1];
    }

    /**
     * The largest payload accepted from now on (for frames whose header is not read yet).
     */
    public function limit(int $bytes): void
    {
        $this->limit = min(self::MAX_PAYLOAD, max(0, $bytes));
    }

    /**
     * Appends bytes and returns the frames now complete, as [type, payload] pairs.
     *
     * @return list<array{FrameType, string}>
     *
     * @throws FrameException on an unknown type or an oversized frame
     */
    public function push(string $bytes): array
    {
        $this->append($bytes);
        $frames = [];
        while (($frame = $this->next()) !== null) {
            $frames[] = $frame;
        }

        return $frames;
    }

    /**
     * Appends bytes without reading frames: next() takes them one at a time, so that a limit()
     * set after one frame applies to the next.
     */
    public function append(string $bytes): void
    {
        if ($this->buffer === '') {
            $this->buffer = $bytes;
        } else {
            $this->buffer .= $bytes; // in place: the buffer has no other reference
        }
    }

    /**
     * The next complete frame as [type, payload], or null when none is complete yet.
     *
     * @return array{FrameType, string}|null
     *
     * @throws FrameException on an unknown type or an oversized frame
     */
    public function next(): ?array
    {
        $size = $this->completeFrame();
        if ($size < 0) {
            return null;
        }
        $offset = $this->offset;
        $buffer = $this->buffer;
        $type = FrameType::tryFrom(\ord($buffer[$offset + 4]))
            ?? throw new FrameException('Unknown frame type ' . \ord($buffer[$offset + 4]) . ': is the other side a Nexus worker of the same version?');
        $payload = $size === 0 ? '' : substr($buffer, $offset + self::HEADER, $size);
        $this->take($size);

        return [$type, $payload];
    }

    /**
     * The encoded batch of the next complete frame, which must be a Batch (what an authenticated
     * peer sends), or null when none is complete yet; its sequence number and wire format are in
     * $sequence and $format. The same bounds as next(), read without building a frame.
     *
     * @phpstan-impure it takes the frame from the buffer
     *
     * @throws FrameException on another type of frame, a batch frame too short for its head, or an
     *                        oversized frame
     */
    public function nextBatch(): ?string
    {
        $size = $this->completeFrame();
        if ($size < 0) {
            return null;
        }
        $offset = $this->offset;
        $buffer = $this->buffer;
        $type = \ord($buffer[$offset + 4]);
        if ($type !== FrameType::Batch->value || $size < self::BATCH_HEAD) {
            $name = FrameType::tryFrom($type)->name ?? (string) $type;

            throw new FrameException($type === FrameType::Batch->value ? 'a Batch frame too short for its sequence number and format' : "a frame of type {$name} where batches were expected");
        }
        $this->sequence = substr($buffer, $offset + self::HEADER, 8);
        $format = \ord($buffer[$offset + self::HEADER + 8]);
        if ($format !== $this->format) {
            $this->format = $format; // written only when it changes: a typed property write costs ~100 instructions
        }
        $batch = substr($buffer, $offset + self::HEADER + self::BATCH_HEAD, $size - self::BATCH_HEAD);
        $this->take($size);

        return $batch;
    }

    /**
     * The payload size of the frame at the head of the buffer when all of it has arrived, else -1
     * (then nothing is parsed again until enough bytes have arrived, and what was read is let go).
     *
     * @throws FrameException on an oversized frame
     */
    private function completeFrame(): int
    {
        $offset = $this->offset;
        $buffer = $this->buffer;
        $available = \strlen($buffer) - $offset;
        if ($available < self::HEADER || $available < $this->needed) {
            return -1;
        }
        $size = \ord($buffer[$offset]) << 24 | \ord($buffer[$offset + 1]) << 16 | \ord($buffer[$offset + 2]) << 8 | \ord($buffer[$offset + 3]);
        if ($size > $this->limit) {
            throw new FrameException("A frame of {$size} bytes exceeds the limit of {$this->limit} bytes.");
        }
        if ($available - self::HEADER < $size) {
            $this->needed = self::HEADER + $size; // nothing to parse until that much has arrived
            if ($offset > 0) {
                $this->buffer = substr($buffer, $offset);
                $this->offset = 0;
            }

            return -1;
        }

        return $size;
    }

    /**
     * Moves past the frame at the head of the buffer, whose payload is $size bytes. (Fields
     * written only when they change: a typed property write costs ~100 instructions.)
     */
    private function take(int $size): void
    {
        if ($this->needed !== 0) {
            $this->needed = 0;
        }
        $offset = $this->offset + self::HEADER + $size;
        if ($offset === \strlen($this->buffer)) {
            $this->buffer = '';
            if ($this->offset !== 0) {
                $this->offset = 0;
            }
        } else {
            $this->offset = $offset;
        }
    }

    public function bufferedBytes(): int
    {
        return \strlen($this->buffer) - $this->offset;
    }
}
