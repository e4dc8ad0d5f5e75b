<?php

declare(strict_types=1);

namespace Nexus\Redis\Protocol;

use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisProtocolException;

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
 */
final class RespParser
{
    private string $buffer = '';
    /** @var int how many buffered bytes the element cut short needs before parsing can go on */
    private int $awaiting = 0;
    private int $depth = 0;
    /** @var array<int, list<mixed>> */
    private array $items = [];
    /** @var array<int, int> */
    private array $remaining = [];

    /**
     * @return list<mixed> the replies completed by these bytes, in order
     *
     * @throws RedisProtocolException on bytes that are not RESP; the parser is unusable after that
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
                break;
            }
            $type = $buffer[$pos];
            if ($type === '$') {
                $size = (int) substr($buffer, $pos + 1, $eol - $pos - 1);
                if ($size < 0) {
                    $value = null;
                    $pos = $eol + 2;
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
                $count = (int) substr($buffer, $pos + 1, $eol - $pos - 1);
                $pos = $eol + 2;
                if ($count > 0) {
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
        }
        if ($pos === $length) {
            $this->buffer = '';
        } elseif ($pos > 0) {
            $this->buffer = substr($buffer, $pos);
        }

        return $replies;
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
