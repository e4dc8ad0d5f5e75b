<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\Exception\BodyTooLargeException;
use Nexus\HttpClient\Exception\ContentDecodingException;

/**
 * Decodes a gzip or deflate body incrementally (ext-zlib), one piece at a time as it arrives.
 *
 * Bound: at most $maxDecoded bytes come out in all (BodyTooLargeException). inflate_add() has no
 * output limit and deflate expands up to ~1,000 times, so input is fed in slices of 4 KiB: one call
 * yields at most ~4 MiB beyond the cap before it is noticed, whatever the server sends.
 * "deflate" is read as zlib-wrapped data (RFC 9110), or as raw deflate when the first bytes are
 * not a zlib header, which some servers send.
 *
 * @internal
 */
final class BodyDecoder
{
    private const SLICE = 4096;

    private ?\InflateContext $context = null;
    private int $decoded = 0;
    private bool $ended = false;

    public function __construct(
        private readonly string $encoding,
        private readonly int $maxDecoded,
    ) {}

    /**
     * Whether $encoding (a Content-Encoding value) is one this decoder reads; null when the body is
     * not encoded at all ("identity" or empty).
     */
    public static function supports(string $encoding): ?bool
    {
        return match ($encoding) {
            '', 'identity' => null,
            'gzip', 'x-gzip', 'deflate' => true,
            default => false,
        };
    }

    /**
     * @throws ContentDecodingException
     * @throws BodyTooLargeException
     */
    public function decode(string $piece): string
    {
        if ($piece === '') {
            return '';
        }
        if ($this->ended) {
            throw new ContentDecodingException("The {$this->encoding} body goes on after its end: it is corrupt.");
        }
        $context = $this->context ??= $this->open($piece);
        $out = '';
        $length = \strlen($piece);
        for ($offset = 0; $offset < $length; $offset += self::SLICE) {
            $chunk = @inflate_add($context, $length <= self::SLICE ? $piece : substr($piece, $offset, self::SLICE), \ZLIB_SYNC_FLUSH);
            if ($chunk === false) {
                throw new ContentDecodingException(\sprintf('The %s body of the response does not decode: %s. Send the request with decompress: false to get the raw bytes.', $this->encoding, error_get_last()['message'] ?? 'corrupt data'));
            }
            $this->decoded += \strlen($chunk);
            if ($this->decoded > $this->maxDecoded) {
                throw new BodyTooLargeException(\sprintf('The %s body of the response decodes to more than %d bytes (maxDecodedSize): cut off as a possible decompression bomb. Raise maxDecodedSize, or stream the body with decompress: false.', $this->encoding, $this->maxDecoded));
            }
            $out .= $chunk;
            if (inflate_get_status($context) === \ZLIB_STREAM_END) {
                // Bytes after the end of the compressed stream in this piece are ignored (padding).
                $this->ended = true;

                break;
            }
        }

        return $out;
    }

    /**
     * The body has ended: fails when the compressed stream did not.
     *
     * @throws ContentDecodingException
     */
    public function finish(): void
    {
        if ($this->context !== null && !$this->ended && inflate_get_status($this->context) !== \ZLIB_STREAM_END) {
            throw new ContentDecodingException("The {$this->encoding} body of the response ends before its compressed stream does: it was truncated.");
        }
    }

    private function open(string $first): \InflateContext
    {
        $encoding = \ZLIB_ENCODING_GZIP;
        if ($this->encoding === 'deflate') {
            // A zlib header: CMF 0x?8 with (CMF * 256 + FLG) divisible by 31.
            $zlib = \strlen($first) >= 2 && (\ord($first[0]) & 0x0F) === 8 && ((\ord($first[0]) << 8) | \ord($first[1])) % 31 === 0;
            $encoding = $zlib ? \ZLIB_ENCODING_DEFLATE : \ZLIB_ENCODING_RAW;
        }
        $context = inflate_init($encoding);
        if ($context === false) {
            throw new ContentDecodingException("Cannot start decoding a {$this->encoding} body (zlib).");
        }

        return $context;
    }
}
