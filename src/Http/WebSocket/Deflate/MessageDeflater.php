<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Deflate;

use Nexus\Http\WebSocket\DeflateOptions;

/**
 * Compresses the outgoing messages of one permessage-deflate connection (RFC 7692 §7.2.1): raw
 * deflate flushed with a sync flush, without the trailing 00 00 FF FF.
 *
 * The zlib context (about 270 KB at memoryLevel 8, window 15) is created on the first message
 * compressed. Without context takeover it is dropped after each message, so an idle connection
 * holds none (creating one costs about a microsecond).
 */
final class MessageDeflater
{
    private ?\DeflateContext $context = null;

    public function __construct(
        private readonly DeflateOptions $options,
        private readonly int $windowBits,
        private readonly bool $noContextTakeover,
    ) {}

    public function deflate(string $message): string
    {
        $context = $this->context ?? deflate_init(\ZLIB_ENCODING_RAW, [
            'level' => $this->options->level,
            'memory' => $this->options->memoryLevel,
            'window' => $this->windowBits,
        ]);
        if ($context === false) {
            throw new \RuntimeException('zlib could not create a deflate context (out of memory?).');
        }
        $out = deflate_add($context, $message, \ZLIB_SYNC_FLUSH);
        if ($out === false) {
            $this->context = null;

            throw new \RuntimeException('zlib could not compress a message (out of memory?).');
        }
        if ($this->noContextTakeover) {
            $this->context = null;
        } else {
            $this->context = $context;
        }

        // A sync flush ends with an empty stored block, 00 00 FF FF, which the receiver appends back.
        return substr($out, 0, -4);
    }
}
