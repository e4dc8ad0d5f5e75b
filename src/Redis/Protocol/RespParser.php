<?php

declare(strict_types=1);

namespace Nexus\Redis\Protocol;

use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisProtocolException;
use Nexus\Redis\Exception\RedisReplyLimitException;

/**
 * Incremental RESP2 parser, one per connection: feed() it bytes as they arrive, split anywhere,
 * and it returns the replies completed so far.
 *
 * Replies: simple string and bulk string as string, integer as int, nil bulk or nil array as
 * null, array as list (nested), error as a RedisErrorException object (returned, not thrown, so
 * that an error inside an EXEC reply stays in its slot).
 *
 * Arrays being filled are kept on a stack, so an array split across reads is never parsed twice;
 * an element cut short is parsed again from its own first byte once more data is there.
 *
 * Bounded: arrays nest at most $maxDepth deep, one reply holds at most $maxElements elements
 * (counted at every level as arrays are announced), a bulk string is at most $maxBulkLength bytes
 * and a line at most $maxLineLength. Beyond one, feed() throws RedisReplyLimitException as soon as
 * the header says so, before anything more is buffered; a header that is not a number, or a
 * negative length other than -1, is a RedisProtocolException.
 */
final class RespParser
{
    public const DEFAULT_MAX_DEPTH = 64;
    public const DEFAULT_MAX_ELEMENTS = 1_000_000;
    /** 512 MiB, Redis's own proto-max-bulk-len */
    public const DEFAULT_MAX_BULK_LENGTH = 536_870_912;
    public const DEFAULT_MAX_LINE_LENGTH = 1_048_576;

    private string $buffer = '';
    /** @var int how many buffered bytes the element cut short needs before parsing can go on */
    private int $awaiting = 0;
    private int $depth = 0;
    /** @var array<int, list<mixed>> */
    private array $items = [];
    /** @var array<int, int> */
    private array $remaining = [];
    /** elements announced so far by the arrays of the reply being parsed */
    private int $elements = 0;

    public function __construct(
        private readonly int $maxDepth = self::DEFAULT_MAX_DEPTH,
        private readonly int $maxElements = self::DEFAULT_MAX_ELEMENTS,
        private readonly int $maxBulkLength = self::DEFAULT_MAX_BULK_LENGTH,
        private readonly int $maxLineLength = self::DEFAULT_MAX_LINE_LENGTH,
    ) {}

    /**
     * @return list<mixed> the replies completed by these bytes, in order
     *
     * @throws RedisProtocolException   on bytes that are not RESP; the parser is unusable after that
     * @throws RedisReplyLimitException on a reply beyond a limit; the parser is unusable after that
     */
    public function feed(string $data): array
    {
        // Appending to the property grows the string in place, so a large bulk arriving in many
        // chunks is not copied once per chunk.
        $this->buffer .= $data;
        $length = \strlen($this->buffer);
        if ($length < $this->awaiting) {
            return [];
        }
        $this->awaiting = 0;
        $buffer = $this->buffer;
        $pos = 0;
        $replies = [];
        while ($pos < $length) {
            $eol = strpos($buffer, "\r\n", $pos + 1);
            if ($eol === false) {
                if ($length - $pos > $this->maxLineLength + 1) {
                    throw $this->overLimit(RespLimit::LineLength, $this->maxLineLength, $length - $pos - 1, 'a line without its end (CRLF)');
                }
                break;
            }
            $type = $buffer[$pos];
            if ($type === '$') {
                $size = $this->length($buffer, $pos, $eol);
                if ($size === -1) {
                    $value = null;
                    $pos = $eol + 2;
                } elseif ($size > $this->maxBulkLength) {
                    throw $this->overLimit(RespLimit::BulkLength, $this->maxBulkLength, $size, 'a bulk string');
                } else {
                    $end = $eol + 2 + $size;
                    if ($end + 2 > $length) {
                        $this->awaiting = $end + 2 - $pos;
                        break;
                    }
                    $value = substr($buffer, $eol + 2, $size);
                    $pos = $end + 2;
                }
            } elseif ($type === ':') {
                $value = (int) substr($buffer, $pos + 1, $eol - $pos - 1);
                $pos = $eol + 2;
            } elseif ($type === '+') {
                $value = substr($buffer, $pos + 1, $eol - $pos - 1);
                $pos = $eol + 2;
            } elseif ($type === '*') {
                $count = $this->length($buffer, $pos, $eol);
                $pos = $eol + 2;
                if ($count > 0) {
                    if ($this->depth >= $this->maxDepth) {
                        throw $this->overLimit(RespLimit::Depth, $this->maxDepth, $this->depth + 1, 'arrays nested');
                    }
                    $this->elements += $count;
                    if ($this->elements > $this->maxElements) {
                        throw $this->overLimit(RespLimit::Elements, $this->maxElements, $this->elements, 'elements in one reply');
                    }
                    $this->items[$this->depth] = [];
                    $this->remaining[$this->depth] = $count;
                    ++$this->depth;

                    continue;
                }
                $value = $count === 0 ? [] : null;
            } elseif ($type === '-') {
                $value = RedisErrorException::fromReply(substr($buffer, $pos + 1, $eol - $pos - 1));
                $pos = $eol + 2;
            } else {
                throw new RedisProtocolException(sprintf(
                    'Unexpected byte 0x%02x where a RESP type marker (+ - : $ *) was expected; is this a Redis server?',
                    \ord($type),
                ));
            }
            // Attach the value to the innermost open array; a completed array climbs one level.
            while ($this->depth > 0) {
                $top = $this->depth - 1;
                $this->items[$top][] = $value;
                if (--$this->remaining[$top] > 0) {
                    continue 2;
                }
                $value = $this->items[$top];
                unset($this->items[$top], $this->remaining[$top]);
                $this->depth = $top;
            }
            $replies[] = $value;
            $this->elements = 0;
        }
        if ($pos === $length) {
            $this->buffer = '';
        } elseif ($pos > 0) {
            $this->buffer = substr($buffer, $pos);
        }

        return $replies;
    }

    /**
     * The length or count of a $ or * header: a number, -1 for nil.
     */
    private function length(string $buffer, int $pos, int $eol): int
    {
        $digits = substr($buffer, $pos + 1, $eol - $pos - 1);
        $value = (int) $digits;
        if (($value <= 0 || $value > 0x7FFFFFFF) && (string) $value !== $digits) {
            throw new RedisProtocolException(sprintf(
                'A RESP %s header must hold a length of 0 or more, or -1; got "%s". Is this a Redis server?',
                $buffer[$pos],
                substr($digits, 0, 40),
            ));
        }
        if ($value < -1) {
            throw new RedisProtocolException("A RESP {$buffer[$pos]} header holds the negative length {$value}; only -1 (nil) is allowed.");
        }

        return $value;
    }

    private function overLimit(RespLimit $limit, int $max, int $actual, string $what): RedisReplyLimitException
    {
        return new RedisReplyLimitException(
            sprintf('The reply has %s beyond the limit %s = %d (got %d).', $what, $limit->value, $max, $actual),
            $limit,
            $max,
            $actual,
        );
    }

    /**
     * Bytes received that do not complete an element yet.
     */
    public function bufferedBytes(): int
    {
        return \strlen($this->buffer);
    }

    /**
     * Whether a reply has started but is not complete.
     */
    public function isMidReply(): bool
    {
        return $this->buffer !== '' || $this->depth > 0;
    }
}
