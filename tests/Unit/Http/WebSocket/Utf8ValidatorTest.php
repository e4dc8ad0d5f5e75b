<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\WebSocket\Utf8Validator;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class Utf8ValidatorTest extends TestCase
{
    public function testValidTextCutAtEveryPositionIsAccepted(): void
    {
        $text = "ascii \u{00E9} \u{20AC} \u{1F600} \u{10FFFF} \u{D7FF} \u{E000} end";
        for ($cut = 0; $cut <= \strlen($text); ++$cut) {
            $validator = new Utf8Validator();
            self::assertTrue($validator->feed(substr($text, 0, $cut)), "first piece, cut at {$cut}");
            self::assertTrue($validator->feed(substr($text, $cut)), "second piece, cut at {$cut}");
            self::assertTrue($validator->isComplete(), "complete, cut at {$cut}");
        }
    }

    public function testOneByteAtATime(): void
    {
        $validator = new Utf8Validator();
        foreach (str_split("\u{1F600}\u{00E9}\u{20AC}") as $byte) {
            self::assertTrue($validator->feed($byte));
        }
        self::assertTrue($validator->isComplete());
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function invalid(): iterable
    {
        yield 'lone continuation' => ["\x80"];
        yield 'overlong NUL' => ["\xC0\x80"];
        yield 'overlong C1' => ["\xC1\xBF"];
        yield 'overlong 3-byte' => ["\xE0\x80\x80"];
        yield 'surrogate' => ["\xED\xA0\x80"];
        yield 'past U+10FFFF' => ["\xF4\x90\x80\x80"];
        yield 'F5 lead' => ["\xF5\x80\x80\x80"];
        yield 'FF' => ["\xFF"];
        yield 'lead then ASCII' => ["\xC3(x"];
    }

    #[DataProvider('invalid')]
    public function testInvalidSequencesAreRejectedWhereverTheyAreCut(string $bad): void
    {
        $text = 'ok ' . $bad . ' tail';
        for ($cut = 0; $cut <= \strlen($text); ++$cut) {
            $validator = new Utf8Validator();
            $ok = $validator->feed(substr($text, 0, $cut)) && $validator->feed(substr($text, $cut)) && $validator->isComplete();
            self::assertFalse($ok, 'cut at ' . $cut);
        }
        self::assertFalse(Utf8Validator::isValid($text));
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function impossiblePrefixes(): iterable
    {
        yield 'E0 needs A0-BF next' => ["\xE0\x9F"];
        yield 'ED needs 80-9F next (no surrogates)' => ["\xED\xA0"];
        yield 'F0 needs 90-BF next' => ["\xF0\x8F"];
        yield 'F4 needs 80-8F next' => ["\xF4\x90"];
        yield 'C0 can start nothing' => ["\xC0"];
        yield 'F8 can start nothing' => ["\xF8"];
    }

    #[DataProvider('impossiblePrefixes')]
    public function testAPieceEndingInAnImpossiblePrefixFailsAtOnce(string $prefix): void
    {
        self::assertFalse((new Utf8Validator())->feed('text ' . $prefix), 'fails fast, before the next piece');
    }

    public function testAPieceEndingInsideACharacterIsNotComplete(): void
    {
        $validator = new Utf8Validator();
        self::assertTrue($validator->feed("caf\xC3"));
        self::assertFalse($validator->isComplete());
        $validator->reset();
        self::assertTrue($validator->isComplete());
    }
}
