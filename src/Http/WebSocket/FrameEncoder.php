<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * Builds RFC 6455 frames. A server sends unmasked frames; a client masks every frame with a fresh
 * 4-byte key (taken from a pool of random bytes refilled 1 KiB at a time).
 */
final class FrameEncoder
{
    /**
     * What encode() makes of a text or binary frame of 0-125 bytes, unmasked, unfragmented and
     * uncompressed, without the payload: a text frame's 2-byte header at its length, a binary
     * frame's at its length + 126 (a server's short messages take it from here). A constant, so
     * that OPcache keeps it in shared memory: no process builds or holds it.
     */
    public const SHORT_HEADS = [
        "\x81\x00", "\x81\x01", "\x81\x02", "\x81\x03", "\x81\x04", "\x81\x05", "\x81\x06", "\x81\x07", "\x81\x08",
        "\x81\x09", "\x81\x0A", "\x81\x0B", "\x81\x0C", "\x81\x0D", "\x81\x0E", "\x81\x0F", "\x81\x10", "\x81\x11",
        "\x81\x12", "\x81\x13", "\x81\x14", "\x81\x15", "\x81\x16", "\x81\x17", "\x81\x18", "\x81\x19", "\x81\x1A",
        "\x81\x1B", "\x81\x1C", "\x81\x1D", "\x81\x1E", "\x81\x1F", "\x81\x20", "\x81\x21", "\x81\x22", "\x81\x23",
        "\x81\x24", "\x81\x25", "\x81\x26", "\x81\x27", "\x81\x28", "\x81\x29", "\x81\x2A", "\x81\x2B", "\x81\x2C",
        "\x81\x2D", "\x81\x2E", "\x81\x2F", "\x81\x30", "\x81\x31", "\x81\x32", "\x81\x33", "\x81\x34", "\x81\x35",
        "\x81\x36", "\x81\x37", "\x81\x38", "\x81\x39", "\x81\x3A", "\x81\x3B", "\x81\x3C", "\x81\x3D", "\x81\x3E",
        "\x81\x3F", "\x81\x40", "\x81\x41", "\x81\x42", "\x81\x43", "\x81\x44", "\x81\x45", "\x81\x46", "\x81\x47",
        "\x81\x48", "\x81\x49", "\x81\x4A", "\x81\x4B", "\x81\x4C", "\x81\x4D", "\x81\x4E", "\x81\x4F", "\x81\x50",
        "\x81\x51", "\x81\x52", "\x81\x53", "\x81\x54", "\x81\x55", "\x81\x56", "\x81\x57", "\x81\x58", "\x81\x59",
        "\x81\x5A", "\x81\x5B", "\x81\x5C", "\x81\x5D", "\x81\x5E", "\x81\x5F", "\x81\x60", "\x81\x61", "\x81\x62",
        "\x81\x63", "\x81\x64", "\x81\x65", "\x81\x66", "\x81\x67", "\x81\x68", "\x81\x69", "\x81\x6A", "\x81\x6B",
        "\x81\x6C", "\x81\x6D", "\x81\x6E", "\x81\x6F", "\x81\x70", "\x81\x71", "\x81\x72", "\x81\x73", "\x81\x74",
        "\x81\x75", "\x81\x76", "\x81\x77", "\x81\x78", "\x81\x79", "\x81\x7A", "\x81\x7B", "\x81\x7C", "\x81\x7D",
        "\x82\x00", "\x82\x01", "\x82\x02", "\x82\x03", "\x82\x04", "\x82\x05", "\x82\x06", "\x82\x07", "\x82\x08",
        "\x82\x09", "\x82\x0A", "\x82\x0B", "\x82\x0C", "\x82\x0D", "\x82\x0E", "\x82\x0F", "\x82\x10", "\x82\x11",
        "\x82\x12", "\x82\x13", "\x82\x14", "\x82\x15", "\x82\x16", "\x82\x17", "\x82\x18", "\x82\x19", "\x82\x1A",
        "\x82\x1B", "\x82\x1C", "\x82\x1D", "\x82\x1E", "\x82\x1F", "\x82\x20", "\x82\x21", "\x82\x22", "\x82\x23",
        "\x82\x24", "\x82\x25", "\x82\x26", "\x82\x27", "\x82\x28", "\x82\x29", "\x82\x2A", "\x82\x2B", "\x82\x2C",
        "\x82\x2D", "\x82\x2E", "\x82\x2F", "\x82\x30", "\x82\x31", "\x82\x32", "\x82\x33", "\x82\x34", "\x82\x35",
        "\x82\x36", "\x82\x37", "\x82\x38", "\x82\x39", "\x82\x3A", "\x82\x3B", "\x82\x3C", "\x82\x3D", "\x82\x3E",
        "\x82\x3F", "\x82\x40", "\x82\x41", "\x82\x42", "\x82\x43", "\x82\x44", "\x82\x45", "\x82\x46", "\x82\x47",
        "\x82\x48", "\x82\x49", "\x82\x4A", "\x82\x4B", "\x82\x4C", "\x82\x4D", "\x82\x4E", "\x82\x4F", "\x82\x50",
        "\x82\x51", "\x82\x52", "\x82\x53", "\x82\x54", "\x82\x55", "\x82\x56", "\x82\x57", "\x82\x58", "\x82\x59",
        "\x82\x5A", "\x82\x5B", "\x82\x5C", "\x82\x5D", "\x82\x5E", "\x82\x5F", "\x82\x60", "\x82\x61", "\x82\x62",
        "\x82\x63", "\x82\x64", "\x82\x65", "\x82\x66", "\x82\x67", "\x82\x68", "\x82\x69", "\x82\x6A", "\x82\x6B",
        "\x82\x6C", "\x82\x6D", "\x82\x6E", "\x82\x6F", "\x82\x70", "\x82\x71", "\x82\x72", "\x82\x73", "\x82\x74",
        "\x82\x75", "\x82\x76", "\x82\x77", "\x82\x78", "\x82\x79", "\x82\x7A", "\x82\x7B", "\x82\x7C", "\x82\x7D",
    ];

    private static string $maskPool = '';
    private static int $maskAt = 0;

    private function __construct() {}

    public static function encode(int $opcode, string $payload, bool $fin = true, bool $rsv1 = false, bool $mask = false): string
    {
        $length = \strlen($payload);
        $b0 = ($fin ? 0x80 : 0) | ($rsv1 ? 0x40 : 0) | $opcode;
        $maskBit = $mask ? 0x80 : 0;
        if ($length < 126) {
            $head = \chr($b0) . \chr($maskBit | $length);
        } elseif ($length < 65_536) {
            $head = \chr($b0) . \chr($maskBit | 126) . pack('n', $length);
        } else {
            $head = \chr($b0) . \chr($maskBit | 127) . pack('J', $length);
        }
        if (!$mask) {
            return $head . $payload;
        }
        $key = self::maskKey();
        if ($length === 0) {
            return $head . $key;
        }

        return $head . $key . ($payload ^ str_repeat($key, ($length >> 2) + 1));
    }

    /**
     * The payload of a close frame: the code in network order, then the reason.
     */
    public static function closePayload(int $code, string $reason): string
    {
        return pack('n', $code) . $reason;
    }

    private static function maskKey(): string
    {
        if (self::$maskAt >= \strlen(self::$maskPool)) {
            self::$maskPool = random_bytes(1024);
            self::$maskAt = 0;
        }
        $key = substr(self::$maskPool, self::$maskAt, 4);
        self::$maskAt += 4;

        return $key;
    }
}
