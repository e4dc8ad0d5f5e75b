<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * Checks that a text message is UTF-8 as its pieces arrive (RFC 6455 §8.1), so that an invalid
 * fragment fails the connection at once instead of after the whole message is buffered.
 *
 * A piece may end inside a character: those last 1-3 bytes are held back (and checked to be the
 * start of some valid character) and prepended to the next piece. Holds at most 3 bytes between
 * pieces. The check itself is PCRE's UTF-8 validation (preg_match with /u), which rejects overlong
 * forms, surrogates and code points past U+10FFFF.
 */
final class Utf8Validator
{
    /** Whether ext-mbstring is loaded (null: not asked yet). */
    private static ?bool $mbstring = null;
    private string $carry = '';

    /**
     * With ext-mbstring, mb_check_encoding() (about 30 ns for a short message, PCRE about 50 ns:
     * this check runs for every text message received and sent); the two agree on every input
     * (overlong forms, surrogates and code points past U+10FFFF are invalid for both).
     */
    public static function isValid(string $text): bool
    {
        if (self::$mbstring ??= \function_exists('mb_check_encoding')) {
            return mb_check_encoding($text, 'UTF-8');
        }

        return preg_match('//u', $text) === 1;
    }

    /**
     * Adds the next piece; false when what came so far cannot be the start of valid UTF-8.
     */
    public function feed(string $piece): bool
    {
        if ($this->carry !== '') {
            $piece = $this->carry . $piece;
            $this->carry = '';
        }
        if (preg_match('//u', $piece) === 1) {
            return true;
        }
        // Invalid as a whole: acceptable only if the sole trouble is a character cut at the end.
        $length = \strlen($piece);
        for ($i = $length - 1; $i >= 0 && $i >= $length - 3; --$i) {
            $byte = \ord($piece[$i]);
            if (($byte & 0xC0) === 0x80) {
                continue; // a continuation byte: the lead is further back
            }
            $need = $byte >= 0xF0 ? 4 : ($byte >= 0xE0 ? 3 : ($byte >= 0xC0 ? 2 : 1));
            $tail = $length - $i;
            if ($need <= $tail) {
                return false; // the last character is complete, so the error is elsewhere
            }
            $head = substr($piece, $i);
            // A valid prefix completes to a valid character with the lowest or the highest
            // continuation bytes (E0 needs A0-BF next, ED 80-9F, F0 90-BF, F4 80-8F).
            if (preg_match('//u', $head . str_repeat("\x80", $need - $tail)) !== 1
                && preg_match('//u', $head . str_repeat("\xBF", $need - $tail)) !== 1) {
                return false;
            }
            if ($i > 0 && preg_match('//u', substr($piece, 0, $i)) !== 1) {
                return false;
            }
            $this->carry = $head;

            return true;
        }

        return false;
    }

    /**
     * Whether the pieces so far end on a character boundary (the message may end here).
     */
    public function isComplete(): bool
    {
        return $this->carry === '';
    }

    public function reset(): void
    {
        $this->carry = '';
    }
}
