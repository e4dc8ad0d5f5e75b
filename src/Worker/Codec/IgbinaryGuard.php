<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

/**
 * Decides, before igbinary_unserialize() runs, that a batch can create no object of an
 * unregistered class and nests no deeper than igbinary's recursion survives. igbinary has no
 * allowed-classes option and would run the __wakeup/__unserialize/__destruct of any class it
 * finds, and it recurses without a depth limit; this check is what makes it safe to feed it bytes
 * from another process.
 *
 * The batch layout makes the check cheap: a batch is the igbinary encoding of
 * [class table, ...messages], where the class table is the list of registered class names. igbinary
 * numbers every string it writes, class names included, in order, and writes an object of a class
 * whose name it has already written as "object id" + that number: so in an honest batch every
 * object refers to an entry of the table (numbers 0 to m-1), and no other kind of object token
 * appears. The check:
 *
 *  - A batch with an empty table and none of the bytes that start an object token (0x17-0x1c)
 *    anywhere cannot create an object at all.
 *  - Otherwise it is tokenized with one regular expression (PCRE, compiled once per table size):
 *    every token of igbinary's format is matched with its exact length (strings by their length
 *    prefix), the table must hold registered names only, and the only object token allowed is an
 *    8-bit object id below m. Anything else (an inline class name, a Serializable payload, an
 *    enum, a string of 64 KiB or more, an unknown type) is refused. Tokens are self-delimiting,
 *    so this tokenization is the one igbinary follows.
 *  - Depth: a batch holds at most MAX_ARRAYS array headers (counted precisely only when the bytes
 *    that can start one are more numerous than that), which bounds its nesting.
 *
 * The sender runs the same check on what it encoded whenever the batch holds objects or is large,
 * and sends the batch with serialize() instead when it fails (see IgbinaryCodec), so an honest
 * batch is never refused at the other end.
 */
final class IgbinaryGuard
{
    /** Array headers (of any nesting) a batch may hold: a bound on its depth that igbinary's recursion survives. */
    public const MAX_ARRAYS = 8192;
    /** Table entries at most: an 8-bit object id addresses them. */
    public const MAX_TABLE = 255;

    private const HEADER = "\x00\x00\x00\x02";

    /** @var array<int, string> tokenizing patterns by table size */
    private array $patterns = [];
    /** @var array<int, string> the same, also counting array headers */
    private array $countingPatterns = [];
    private int $classesVersion = -1;
    private static ?string $lengths = null;

    public function __construct(private readonly MessageClasses $classes) {}

    /**
     * Whether $bytes (an igbinary batch with a class table first) is safe to unserialize.
     */
    public function accepts(string $bytes): bool
    {
        $table = self::tableSize($bytes);
        if ($table < 0 || $table > self::MAX_TABLE) {
            return false;
        }
        // An array header takes 2 bytes at least: a short batch cannot hold too many.
        $manyArrays = \strlen($bytes) > 2 * self::MAX_ARRAYS && self::arrayBytes($bytes) > self::MAX_ARRAYS;
        if ($table === 0 && !$manyArrays && !self::hasObjectBytes($bytes)) {
            return true;
        }

        return preg_match($this->pattern($table, $manyArrays), $bytes) === 1;
    }

    /**
     * Whether any byte that begins an object token (0x17-0x1c) occurs anywhere in $bytes: six
     * scans for one byte each (memchr) take a tenth of the time of one PCRE character class over a
     * frame of a few KiB, and no more over a small one.
     */
    private static function hasObjectBytes(string $bytes): bool
    {
        return str_contains($bytes, "\x1a") || str_contains($bytes, "\x17") || str_contains($bytes, "\x18")
            || str_contains($bytes, "\x19") || str_contains($bytes, "\x1b") || str_contains($bytes, "\x1c");
    }

    /**
     * The bytes that could start an array header: at least as many as the array headers.
     */
    public static function arrayBytes(string $bytes): int
    {
        return substr_count($bytes, "\x14") + substr_count($bytes, "\x15") + substr_count($bytes, "\x16");
    }

    /**
     * The number of entries of the class table at the start of a batch, -1 when the bytes do not
     * start like a batch.
     */
    private static function tableSize(string $bytes): int
    {
        if (\strlen($bytes) < 12 || strncmp($bytes, self::HEADER, 4) !== 0) {
            return -1;
        }
        $position = match ($bytes[4]) {
            "\x14" => 6,
            "\x15" => 7,
            "\x16" => 9,
            default => -1,
        };
        if ($position < 0 || substr($bytes, $position, 3) !== "\x06\x00\x14") {
            return -1;
        }

        return \ord($bytes[$position + 3]);
    }

    private function pattern(int $table, bool $countArrays): string
    {
        if ($this->classesVersion !== $this->classes->version()) {
            $this->classesVersion = $this->classes->version();
            $this->patterns = $this->countingPatterns = [];
        }
        if ($countArrays) {
            return $this->countingPatterns[$table] ??= $this->build($table, true);
        }

        return $this->patterns[$table] ??= $this->build($table, false);
    }

    private function build(int $table, bool $countArrays): string
    {
        $names = [];
        foreach ($this->classes->all() as $name) {
            if (\strlen($name) < 256) {
                $names[] = '\x11' . self::byte(\strlen($name)) . preg_quote($name, '/');
            }
        }
        $entries = '';
        for ($i = 0; $i < $table; ++$i) {
            $entries .= '\x06' . self::byte($i) . ($names === [] ? '(*FAIL)' : '(?:' . implode('|', $names) . ')');
        }
        // Every igbinary token by its exact length, the frequent ones first (PCRE tries the
        // alternatives in order); objects only as ids into the table.
        $object = $table > 0 ? '|\x1a[\x00-' . self::byte($table - 1) . ']' : '';
        $define = '(?(DEFINE)' . self::lengths();
        $head = '\A\x00\x00\x00\x02(?:\x14.|\x15.{2}|\x16.{4})\x06\x00\x14' . self::byte($table) . $entries;
        if (!$countArrays) {
            $token = '[\x06\x0e\x14\x01\x07\x22].|\x11(?&L8)|[\x08\x0f\x15\x02\x09\x23].{2}|\x0c.{8}' . $object
                . '|[\x00\x04\x05\x0d\x25]|[\x0a\x10\x16\x03\x0b\x24].{4}|[\x20\x21].{8}|\x12(?&L16)';

            return "/{$define}){$head}(?:{$token})*+\\z/s";
        }
        // Runs of other tokens, each ending in an array header (or at the end), at most MAX_ARRAYS of them.
        $token = '[\x06\x0e\x01\x07\x22].|\x11(?&L8)|[\x08\x0f\x02\x09\x23].{2}|\x0c.{8}' . $object
            . '|[\x00\x04\x05\x0d\x25]|[\x0a\x10\x03\x0b\x24].{4}|[\x20\x21].{8}|\x12(?&L16)';
        $array = '\x14.|\x15.{2}|\x16.{4}';
        $blocks = intdiv(self::MAX_ARRAYS, 64);
        $define .= "(?<A>(?:{$token})*+(?:{$array}|\\z))(?<A64>(?&A){0,64}+)";

        return "/{$define}){$head}(?&A64){0,{$blocks}}+\\z/s";
    }

    /**
     * Subpatterns that consume a length prefix and as many bytes: L8 one length byte, L16 two
     * (big-endian). Quantifiers of PCRE stop at 65535, so the high byte of L16 adds 256 * n.
     */
    private static function lengths(): string
    {
        if (self::$lengths === null) {
            $l8 = $l16 = [];
            for ($n = 0; $n < 256; ++$n) {
                $l8[] = self::byte($n) . ($n === 0 ? '' : ".{{$n}}");
                $l16[] = self::byte($n) . '(?&L8)' . ($n === 0 ? '' : '.{' . ($n * 256) . '}');
            }
            self::$lengths = '(?<L8>' . implode('|', $l8) . ')(?<L16>' . implode('|', $l16) . ')';
        }

        return self::$lengths;
    }

    private static function byte(int $value): string
    {
        return \sprintf('\x%02x', $value);
    }
}
