<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Worker\Exception\FrameException;

/**
 * Splits a byte stream into frames (see FrameType) and builds frames.
 */
final class Frames
{
    public const HEADER = 5;
    /** A batch above this is refused rather than buffered: a peer gone wrong must not exhaust memory. */
    public const MAX_PAYLOAD = 64 * 1024 * 1024;

    private string $buffer = '';

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
     * Appends bytes and returns the frames now complete, as [type, payload] pairs.
     *
     * @return list<array{FrameType, string}>
     *
     * @throws FrameException on an unknown type or an oversized frame
     */
    public function push(string $bytes): array
    {
        $buffer = $this->buffer === '' ? $bytes : $this->buffer . $bytes;
        $length = \strlen($buffer);
        $offset = 0;
        $frames = [];
        while ($length - $offset >= self::HEADER) {
            /** @var array{len: int, type: int} $header */
            $header = unpack('Nlen/Ctype', $buffer, $offset);
            $size = $header['len'];
            $code = $header['type'];
            if ($size > self::MAX_PAYLOAD) {
                throw new FrameException("A frame of {$size} bytes exceeds the limit of " . self::MAX_PAYLOAD . ' bytes.');
            }
            if ($length - $offset - self::HEADER < $size) {
                break;
            }
            $type = FrameType::tryFrom($code)
                ?? throw new FrameException("Unknown frame type {$code}: is the other side a Nexus worker of the same version?");
            $frames[] = [$type, (string) substr($buffer, $offset + self::HEADER, $size)];
            $offset += self::HEADER + $size;
        }
        $this->buffer = $offset === 0 ? $buffer : (string) substr($buffer, $offset);

        return $frames;
    }

    public function bufferedBytes(): int
    {
        return \strlen($this->buffer);
    }
}
