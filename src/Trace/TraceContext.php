<?php

declare(strict_types=1);

namespace Nexus\Trace;

/**
 * Where a piece of work sits in a distributed trace: the W3C Trace Context of a span (trace id,
 * span id, flags, and the vendors' tracestate), as it travels in the `traceparent` and
 * `tracestate` headers and with actor messages.
 *
 * fromHeaders() never throws: a malformed `traceparent` gives null (the request starts a new
 * trace, the client sees no error), a malformed or oversized `tracestate` is dropped while the
 * `traceparent` is kept. Bounds: `tracestate` at most MAX_TRACESTATE bytes and MAX_MEMBERS
 * list members (W3C: 32), else it is dropped whole.
 */
final readonly class TraceContext
{
    public const FLAG_SAMPLED = 0x01;
    /** The longest tracestate kept; the W3C text asks to propagate at least 512 bytes. */
    public const MAX_TRACESTATE = 512;
    /** List members of a tracestate at most (W3C). */
    public const MAX_MEMBERS = 32;

    private const INVALID_TRACE = '00000000000000000000000000000000';
    private const INVALID_SPAN = '0000000000000000';

    /**
     * @param string $traceId    32 lower-case hex digits, not all zero
     * @param string $spanId     16 lower-case hex digits, not all zero: the span that is the parent of what is done under this context
     * @param int    $flags      the trace flags (bit 0: sampled)
     * @param string $traceState the tracestate header as received ('' for none)
     */
    public function __construct(
        public string $traceId,
        public string $spanId,
        public int $flags = self::FLAG_SAMPLED,
        public string $traceState = '',
    ) {
        if (!self::isId($traceId, 32) || $traceId === self::INVALID_TRACE) {
            throw new \InvalidArgumentException("A trace id is 32 lower-case hex digits, not all zero; got '{$traceId}'.");
        }
        if (!self::isId($spanId, 16) || $spanId === self::INVALID_SPAN) {
            throw new \InvalidArgumentException("A span id is 16 lower-case hex digits, not all zero; got '{$spanId}'.");
        }
        if ($flags < 0 || $flags > 0xFF) {
            throw new \InvalidArgumentException("Trace flags are one byte (0 to 255), got {$flags}.");
        }
    }

    /**
     * The context a request carries in its `traceparent` (and `tracestate`) header, or null when
     * there is none or it is malformed (W3C Trace Context level 1: version 00 is exactly
     * 55 characters; a later version may be longer, with a '-' after the flags; version ff,
     * upper-case hex and all-zero ids are invalid).
     */
    public static function fromHeaders(?string $traceparent, ?string $tracestate = null): ?self
    {
        if ($traceparent === null) {
            return null;
        }
        $traceparent = trim($traceparent, " \t");
        $length = \strlen($traceparent);
        if ($length < 55 || $traceparent[2] !== '-' || $traceparent[35] !== '-' || $traceparent[52] !== '-') {
            return null;
        }
        $version = substr($traceparent, 0, 2);
        if (!self::isId($version, 2) || $version === 'ff' || ($version === '00' ? $length !== 55 : ($length > 55 && $traceparent[55] !== '-'))) {
            return null;
        }
        $traceId = substr($traceparent, 3, 32);
        $spanId = substr($traceparent, 36, 16);
        $flags = substr($traceparent, 53, 2);
        if (!self::isId($traceId, 32) || $traceId === self::INVALID_TRACE
            || !self::isId($spanId, 16) || $spanId === self::INVALID_SPAN || !self::isId($flags, 2)) {
            return null;
        }

        return new self($traceId, $spanId, (int) hexdec($flags), self::cleanTraceState($tracestate));
    }

    /**
     * The same trace, with $spanId as the parent of what comes next.
     */
    public function withSpan(string $spanId, ?int $flags = null): self
    {
        return new self($this->traceId, $spanId, $flags ?? $this->flags, $this->traceState);
    }

    public function sampled(): bool
    {
        return ($this->flags & self::FLAG_SAMPLED) !== 0;
    }

    /**
     * The `traceparent` header value: 00-<trace id>-<span id>-<flags>.
     */
    public function traceparent(): string
    {
        return \sprintf('00-%s-%s-%02x', $this->traceId, $this->spanId, $this->flags);
    }

    private static function isId(string $value, int $length): bool
    {
        return \strlen($value) === $length && strspn($value, '0123456789abcdef') === $length;
    }

    /**
     * The tracestate kept: '' when absent, too long, with too many members, or with a member
     * that is not key=value in the W3C alphabet.
     */
    private static function cleanTraceState(?string $tracestate): string
    {
        if ($tracestate === null || $tracestate === '' || \strlen($tracestate) > self::MAX_TRACESTATE) {
            return '';
        }
        $members = [];
        foreach (explode(',', $tracestate) as $member) {
            $member = trim($member, " \t");
            if ($member === '') {
                continue;
            }
            if (preg_match('/^[a-z0-9][a-z0-9_\-*\/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/', $member) !== 1) {
                return '';
            }
            $members[] = $member;
        }
        if (\count($members) > self::MAX_MEMBERS) {
            return '';
        }

        return implode(',', $members);
    }
}
