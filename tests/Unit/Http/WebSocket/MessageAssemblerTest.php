<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http\WebSocket;

use Nexus\Http\WebSocket\CloseCode;
use Nexus\Http\WebSocket\Deflate\MessageInflater;
use Nexus\Http\WebSocket\Exception\ProtocolException;
use Nexus\Http\WebSocket\Frame;
use Nexus\Http\WebSocket\MessageAssembler;
use PHPUnit\Framework\TestCase;

final class MessageAssemblerTest extends TestCase
{
    public function testJoinsFragmentsOfAllSizes(): void
    {
        $assembler = new MessageAssembler(10_000_000, null);
        $pieces = ['a', str_repeat('b', 70_000), 'c', str_repeat('d', 65_535), str_repeat('e', 100_000), ''];
        $message = null;
        foreach ($pieces as $i => $piece) {
            $message = $assembler->add(new Frame($i === 0 ? 0x2 : 0x0, $i === \count($pieces) - 1, false, $piece));
            self::assertSame($i === \count($pieces) - 1, $message !== null);
        }
        self::assertSame(implode('', $pieces), $message);
        self::assertTrue($assembler->lastWasBinary());
        self::assertFalse($assembler->inProgress());
    }

    public function testManyTinyFragments(): void
    {
        $assembler = new MessageAssembler(1_000_000, null);
        $assembler->add(new Frame(0x1, false, false, ''));
        for ($i = 0; $i < 100_000; ++$i) {
            $assembler->add(new Frame(0x0, false, false, 'x'));
        }
        self::assertSame(100_000, $assembler->bufferedBytes());
        self::assertSame(str_repeat('x', 100_000) . '!', $assembler->add(new Frame(0x0, true, false, '!')));
        self::assertFalse($assembler->lastWasBinary());
    }

    public function testContinuationWithoutAMessage(): void
    {
        $this->expectCode(CloseCode::PROTOCOL_ERROR, static function (MessageAssembler $a): void {
            $a->add(new Frame(0x0, true, false, 'x'));
        });
    }

    public function testNewMessageBeforeTheLastEnded(): void
    {
        $this->expectCode(CloseCode::PROTOCOL_ERROR, static function (MessageAssembler $a): void {
            $a->add(new Frame(0x1, false, false, 'x'));
            $a->add(new Frame(0x2, true, false, 'y'));
        });
    }

    public function testTooBigAcrossFragments(): void
    {
        $this->expectCode(CloseCode::MESSAGE_TOO_BIG, static function (MessageAssembler $a): void {
            $a->add(new Frame(0x2, false, false, str_repeat('x', 60)));
            $a->add(new Frame(0x0, false, false, str_repeat('x', 41)));
        });
    }

    public function testInvalidUtf8AcrossFragments(): void
    {
        $this->expectCode(CloseCode::INVALID_PAYLOAD, static function (MessageAssembler $a): void {
            self::assertNull($a->add(new Frame(0x1, false, false, "ok \xF0\x9F")));
            $a->add(new Frame(0x0, false, false, "\x41"));
        });
    }

    public function testTextEndingInsideACharacter(): void
    {
        $this->expectCode(CloseCode::INVALID_PAYLOAD, static function (MessageAssembler $a): void {
            $a->add(new Frame(0x1, false, false, 'ok'));
            $a->add(new Frame(0x0, true, false, "\xE2\x82"));
        });
    }

    public function testCompressedWithoutNegotiation(): void
    {
        $this->expectCode(CloseCode::PROTOCOL_ERROR, static function (MessageAssembler $a): void {
            $a->add(new Frame(0x1, true, true, 'x'));
        });
    }

    public function testCompressedMessageIsHeldToTheLimitAfterInflation(): void
    {
        $compressed = substr((string) gzdeflate(str_repeat('a', 1000)), 0);
        $assembler = new MessageAssembler(999, new MessageInflater(false));
        try {
            $assembler->add(new Frame(0x1, true, true, $compressed));
            self::fail('1000 bytes passed a 999-byte limit');
        } catch (ProtocolException $e) {
            self::assertSame(CloseCode::MESSAGE_TOO_BIG, $e->closeCode);
        }
        $fits = new MessageAssembler(1000, new MessageInflater(false));
        self::assertSame(str_repeat('a', 1000), $fits->add(new Frame(0x1, true, true, $compressed)));
    }

    /**
     * @param \Closure(MessageAssembler): void $steps
     */
    private function expectCode(int $code, \Closure $steps): void
    {
        try {
            $steps(new MessageAssembler(100, null));
            self::fail('No ProtocolException was thrown.');
        } catch (ProtocolException $e) {
            self::assertSame($code, $e->closeCode, $e->getMessage());
        }
    }
}
