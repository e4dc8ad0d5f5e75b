<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Transport\Frames;
use Nexus\Worker\Transport\FrameType;
use PHPUnit\Framework\TestCase;

final class FramesTest extends TestCase
{
    public function testFramesSplitAtAnyByteComeOutWholeAndInOrder(): void
    {
        $stream = Frames::encode(FrameType::Hello, '0 igbinary s3cret')
            . Frames::encode(FrameType::Batch, pack('J', 7) . 'payload')
            . Frames::encode(FrameType::Ack, pack('J', 7))
            . Frames::encode(FrameType::Batch, '');
        $frames = new Frames();
        $out = [];
        foreach (str_split($stream) as $byte) {
            foreach ($frames->push($byte) as $frame) {
                $out[] = $frame;
            }
        }

        self::assertSame([
            [FrameType::Hello, '0 igbinary s3cret'],
            [FrameType::Batch, pack('J', 7) . 'payload'],
            [FrameType::Ack, pack('J', 7)],
            [FrameType::Batch, ''],
        ], $out);
        self::assertSame(0, $frames->bufferedBytes());
        self::assertSame(7, Frames::sequence($out[2][1]));
    }

    public function testAnUnknownTypeIsRefused(): void
    {
        $this->expectException(FrameException::class);
        $this->expectExceptionMessage('Unknown frame type 9');
        (new Frames())->push(pack('NC', 0, 9));
    }

    public function testAnOversizedFrameIsRefusedBeforeItIsBuffered(): void
    {
        $this->expectException(FrameException::class);
        $this->expectExceptionMessage('exceeds the limit');
        (new Frames())->push(pack('NC', Frames::MAX_PAYLOAD + 1, FrameType::Batch->value));
    }

    public function testASequenceNeedsEightBytes(): void
    {
        $this->expectException(FrameException::class);
        Frames::sequence('short');
    }
}
