<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * How this side takes part in permessage-deflate (RFC 7692).
 *
 * - level: zlib compression level for outgoing messages, 0-9 or -1 (zlib's default, 6).
 * - memoryLevel: zlib memLevel for the compressor, 1-9. With windowBits 15 a compressor costs
 *   about 270 KB of PHP heap at 8 and about 140 KB at 4; it is only created once a message is
 *   actually compressed.
 * - windowBits: the largest LZ77 window (9-15) this side compresses with; a client's
 *   server_max_window_bits offer can only lower it. An offer of 8 is declined (zlib cannot make
 *   a raw stream with a 256-byte window), and the connection runs uncompressed.
 * - serverNoContextTakeover: the server starts every message with an empty window. Its
 *   compressor is then dropped after each message, so an idle connection holds none.
 * - clientNoContextTakeover: ask the client to do the same; the server's decompressor (about
 *   41 KB) is then dropped after each message too. A client offering it gets it in any case.
 * - threshold: outgoing messages shorter than this many bytes are sent uncompressed (RSV1 clear),
 *   which RFC 7692 allows at any time: compressing a handful of bytes costs more than it saves.
 */
final readonly class DeflateOptions
{
    public function __construct(
        public int $level = -1,
        public int $memoryLevel = 8,
        public int $windowBits = 15,
        public bool $serverNoContextTakeover = false,
        public bool $clientNoContextTakeover = false,
        public int $threshold = 128,
    ) {
        if ($level < -1 || $level > 9) {
            throw new \InvalidArgumentException("DeflateOptions::\$level must be between -1 and 9, got {$level}.");
        }
        if ($memoryLevel < 1 || $memoryLevel > 9) {
            throw new \InvalidArgumentException("DeflateOptions::\$memoryLevel must be between 1 and 9, got {$memoryLevel}.");
        }
        if ($windowBits < 9 || $windowBits > 15) {
            throw new \InvalidArgumentException("DeflateOptions::\$windowBits must be between 9 and 15 (zlib cannot make raw deflate streams with 8), got {$windowBits}.");
        }
        if ($threshold < 0) {
            throw new \InvalidArgumentException("DeflateOptions::\$threshold must be 0 or more bytes, got {$threshold}.");
        }
    }
}
