<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Deflate;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\Exception\ProtocolException;

/**
 * Decompresses the messages of one permessage-deflate connection, fragment by fragment, with a
 * cap on the output that is checked while inflating: a decompression bomb is cut off after at
 * most about $limit plus 64 KiB of output, never inflated whole.
 *
 * Deflate expands at most 1032:1, so input is fed in slices no bigger than the room left divided
 * by that ratio (a small payload that cannot overflow goes in one call). Invalid deflate data, or
 * data after the end of a deflate stream, fails with 1007; output past the limit with 1009.
 *
 * The zlib context (about 41 KB) is created on the first compressed message. It is dropped after
 * each message when the peer does not take over context, or when the peer ended its stream
 * (BFINAL), so that the next message starts fresh.
 */
final class MessageInflater
{
    private const MAX_RATIO = 1032;
    private const MIN_SLICE = 64;
    private const TAIL = "\x00\x00\xff\xff";

    private ?\InflateContext $context = null;
    private int $fed = 0;

    public function __construct(private readonly bool $resetAfterMessage) {}

    /**
     * Inflates one fragment of a compressed message; $final is set on the message's last fragment.
     *
     * @param int $limit bytes of output this fragment may produce at most
     *
     * @throws ProtocolException 1007 for invalid data, 1009 when the output would pass $limit
     */
    public function inflate(string $payload, bool $final, int $limit): string
    {
        $context = $this->context ??= self::open();
        $out = $payload === '' ? '' : $this->add($context, $payload, $limit);
        if ($final) {
            if (!self::ended($context)) {
                $rest = $this->add($context, self::TAIL, $limit - \strlen($out));
                if ($rest !== '') {
                    $out .= $rest;
                }
            }
            if ($this->resetAfterMessage || self::ended($context)) {
                $this->context = null;
                $this->fed = 0;
            }
        }

        return $out;
    }

    private function add(\InflateContext $context, string $input, int $limit): string
    {
        $length = \strlen($input);
        if ($length * self::MAX_RATIO + self::MAX_RATIO <= $limit) {
            $out = $this->slice($context, $input);
            if (\strlen($out) > $limit) {
                throw self::tooBig($limit);
            }

            return $out;
        }
        $pieces = [];
        $produced = 0;
        $at = 0;
        while ($at < $length) {
            $slice = max(self::MIN_SLICE, intdiv($limit - $produced, self::MAX_RATIO));
            $piece = $this->slice($context, substr($input, $at, $slice));
            $at += $slice;
            $produced += \strlen($piece);
            if ($produced > $limit) {
                throw self::tooBig($limit);
            }
            if ($piece !== '') {
                $pieces[] = $piece;
            }
        }

        return implode('', $pieces);
    }

    private function slice(\InflateContext $context, string $input): string
    {
        $ended = self::ended($context);
        error_clear_last();
        $out = $ended ? false : @inflate_add($context, $input, \ZLIB_SYNC_FLUSH);
        $this->fed += \strlen($input);
        if ($out === false) {
            $this->context = null;
            $reason = $ended ? 'data after the end of the deflate stream' : (error_get_last()['message'] ?? 'zlib error');

            throw new ProtocolException(CloseCode::INVALID_PAYLOAD, "The compressed message could not be inflated: {$reason}.");
        }
        if (self::ended($context) && inflate_get_read_len($context) < $this->fed) {
            $this->context = null;

            throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'The compressed message has data after the end of its deflate stream.');
        }

        return $out;
    }

    /**
     * @phpstan-impure the status changes with every inflate_add()
     */
    private static function ended(\InflateContext $context): bool
    {
        return inflate_get_status($context) === \ZLIB_STREAM_END;
    }

    private static function open(): \InflateContext
    {
        $context = inflate_init(\ZLIB_ENCODING_RAW, ['window' => 15]);
        if ($context === false) {
            throw new \RuntimeException('zlib could not create an inflate context (out of memory?).');
        }

        return $context;
    }

    private static function tooBig(int $limit): ProtocolException
    {
        return new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "The message inflates to more than the {$limit} bytes it may still take.");
    }
}
