<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

use Nexus\Worker\Exception\FrameException;

/**
 * Wire format 6 (and 5, still read): a small batch whose values are all ints and strings (no
 * class table, no array, no object), the common frame of an ask and its reply. igbinary costs
 * about 1,400 instructions for the call pair whatever the batch, and the guard a few hundred
 * more; this format is written and read by a short loop, and it cannot describe anything but ints
 * and strings, so it needs no guard.
 *
 * Each value after the (empty) class table is one of:
 *  - a string shorter than 252 bytes: one byte holding its length, then its bytes;
 *  - a longer string: 0xFC, its length as 4 bytes big-endian, then its bytes;
 *  - an int: 0xFD, the length of its decimal text (one byte), then that text ("-12");
 *  - format 6 only: an int from 0 to 65,535 (a sender's worker number, a count, an id): 0xFE, then
 *    2 bytes big-endian. Its text would cost a conversion each way and a check of the canonical
 *    form, about 400 instructions an int; format 5 (written before it) has no such marker.
 *
 * A reader refuses anything else (an unknown marker, a value cut short, an int whose text is not
 * the canonical form of an int) with a FrameException.
 */
final class ScalarBatch
{
    /**
     * Batches of at most this many values (after the table) are written in this format whatever
     * they hold; a larger one only when at most one value in INT_SHARE is an int. An int costs
     * more here than in igbinary (its text is checked for the canonical form), a string less
     * (igbinary looks every string up in its string table, hashing it whole, and the guard scans
     * it), so a large batch of strings is cheaper here and a large batch of ints is not.
     */
    public const MAX_VALUES = 40;
    public const INT_SHARE = 8;

    private const LONG_STRING = 0xFC;
    private const INT = 0xFD;
    private const SHORT_INT = 0xFE;

    /**
     * The bytes of $batch in this format, or null when it does not fit it (a class table, a value
     * that is neither an int nor a string, too many ints in a large batch).
     *
     * @param list<mixed> $batch
     */
    public static function encode(array $batch): ?string
    {
        $count = \count($batch);
        if ($batch[0] !== []) {
            return null;
        }
        if ($count === 5) {
            $bytes = self::encodeOne($batch);
            if ($bytes !== null) {
                return $bytes;
            }
        }
        $ints = \PHP_INT_MAX;
        if ($count > self::MAX_VALUES + 1) {
            // A large batch: not one of ints (its first message, after the sender, tells without
            // encoding half of it), and at most this many ints before igbinary is the better choice.
            if (!\is_string($batch[4] ?? null)) {
                return null;
            }
            $ints = intdiv($count, self::INT_SHARE);
        }
        $bytes = '';
        for ($i = 1; $i < $count; ++$i) {
            $value = $batch[$i];
            if (\is_string($value)) {
                $length = \strlen($value);
                $bytes .= $length < self::LONG_STRING ? \chr($length) . $value : "\xFC" . pack('N', $length) . $value;
            } elseif (\is_int($value) && --$ints >= 0) {
                if ($value >= 0 && $value <= 0xFFFF) {
                    $bytes .= "\xFE" . \chr($value >> 8) . \chr($value & 0xFF);
                } else {
                    $text = (string) $value;
                    $bytes .= "\xFD" . \chr(\strlen($text)) . $text;
                }
            } else {
                return null;
            }
        }

        return $bytes;
    }

    /**
     * The bytes encode() writes for the most common small batch, one message after its sender (an
     * ask, its reply), when the sender's worker and the message are short ints or short strings:
     * one sprintf() instead of a concatenation per value (about 850 instructions less); null for
     * any other batch of five values.
     *
     * @param list<mixed> $batch
     */
    private static function encodeOne(array $batch): ?string
    {
        [, $worker, $from, $to, $message] = $batch;
        if (!\is_int($worker) || $worker < 0 || $worker > 0xFFFF || !\is_string($from) || \strlen($from) >= self::LONG_STRING
            || !\is_string($to) || \strlen($to) >= self::LONG_STRING) {
            return null;
        }
        if (\is_int($message) && $message >= 0 && $message <= 0xFFFF) {
            return \sprintf("\xFE%c%c%c%s%c%s\xFE%c%c", $worker >> 8, $worker & 0xFF, \strlen($from), $from, \strlen($to), $to, $message >> 8, $message & 0xFF);
        }
        if (\is_string($message) && \strlen($message) < self::LONG_STRING) {
            return \sprintf("\xFE%c%c%c%s%c%s%c%s", $worker >> 8, $worker & 0xFF, \strlen($from), $from, \strlen($to), $to, \strlen($message), $message);
        }

        return null;
    }

    /**
     * @param bool $shortInts whether the bytes are of format 6 (false: format 5, without the
     *                        marker of a short int)
     *
     * @return list<mixed> the batch, with its empty class table first
     *
     * @throws FrameException when the bytes are not a batch of this format
     */
    public static function decode(string $bytes, bool $shortInts = true): array
    {
        $batch = [[]];
        $end = \strlen($bytes);
        $position = 0;
        while ($position < $end) {
            $marker = \ord($bytes[$position]);
            if ($marker < self::LONG_STRING) {
                $start = $position + 1;
                $position = $start + $marker;
                if ($position > $end) {
                    throw self::cut();
                }
                $batch[] = substr($bytes, $start, $marker);
            } elseif ($marker === self::SHORT_INT && $shortInts) {
                $position += 3;
                if ($position > $end) {
                    throw self::cut();
                }
                $batch[] = \ord($bytes[$position - 2]) << 8 | \ord($bytes[$position - 1]);
            } elseif ($marker === self::INT) {
                $length = $position + 1 < $end ? \ord($bytes[$position + 1]) : 0;
                $start = $position + 2;
                $position = $start + $length;
                if ($position > $end) {
                    throw self::cut();
                }
                $text = substr($bytes, $start, $length);
                $int = (int) $text;
                if ((string) $int !== $text) {
                    throw new FrameException('A batch from another worker holds a malformed int: do all workers run the same version?');
                }
                $batch[] = $int;
            } elseif ($marker === self::LONG_STRING && $position + 5 <= $end) {
                $length = \ord($bytes[$position + 1]) << 24 | \ord($bytes[$position + 2]) << 16 | \ord($bytes[$position + 3]) << 8 | \ord($bytes[$position + 4]);
                $start = $position + 5;
                $position = $start + $length;
                if ($position > $end) {
                    throw self::cut();
                }
                $batch[] = substr($bytes, $start, $length);
            } else {
                throw $marker === self::LONG_STRING ? self::cut() : new FrameException("A batch from another worker holds an unknown value marker {$marker}: do all workers run the same version?");
            }
        }

        return $batch;
    }

    private static function cut(): FrameException
    {
        return new FrameException('A batch from another worker ends in the middle of a value.');
    }
}
