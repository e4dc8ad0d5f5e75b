<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\ChunkedEncoder;
use PHPUnit\Framework\TestCase;

final class ChunkedEncoderTest extends TestCase
{
    public function testFramesChunksInHexAndEndsWithTrailers(): void
    {
        $encoder = new ChunkedEncoder();

        self::assertSame("5\r\nhello\r\n", $encoder->chunk('hello'));
        self::assertSame("1a\r\n" . str_repeat('x', 26) . "\r\n", $encoder->chunk(str_repeat('x', 26)));
        self::assertSame('', $encoder->chunk(''), 'an empty chunk would end the body');
        self::assertFalse($encoder->ended());
        self::assertSame("0\r\nX-Sum: 1\r\nX-Other: b\r\n\r\n", $encoder->end(['X-Sum' => '1', 'X-Other' => 'b']));
        self::assertTrue($encoder->ended());
    }

    public function testEndsWithoutTrailers(): void
    {
        self::assertSame("0\r\n\r\n", (new ChunkedEncoder())->end());
    }

    public function testRefusesChunksAfterTheEnd(): void
    {
        $encoder = new ChunkedEncoder();
        $encoder->end();

        $this->expectException(\LogicException::class);
        $encoder->chunk('late');
    }

    public function testRefusesASecondEnd(): void
    {
        $encoder = new ChunkedEncoder();
        $encoder->end();

        $this->expectException(\LogicException::class);
        $encoder->end();
    }

    public function testRefusesInjectedTrailers(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        (new ChunkedEncoder())->end(['X-A' => "b\r\nEvil: 1"]);
    }
}
