<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * Builds RFC 6455 frames. A server sends unmasked frames; a client masks every frame with a fresh
 * 4-byte key (taken from a pool of random bytes refilled 1 KiB at a time).
 */
final class FrameEncoder
{
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
