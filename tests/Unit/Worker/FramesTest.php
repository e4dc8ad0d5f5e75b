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
        $stream = Frames::encode(FrameType::Hello, 'nexus1 peer 0 igbinary 00ff')
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
            [FrameType::Hello, 'nexus1 peer 0 igbinary 00ff'],
            [FrameType::Batch, pack('J', 7) . 'payload'],
            [FrameType::Ack, pack('J', 7)],
            [FrameType::Batch, ''],
        ], $out);
        self::assertSame(0, $frames->bufferedBytes());
        self::assertSame(7, Frames::sequence($out[2][1]));
    }

    public function testBatchFramesComeOutAsTheirBatchWithSequenceAndFormatAtAnySplit(): void
    {
        $stream = Frames::encode(FrameType::Batch, pack('JC', 7, 3) . 'first')
            . Frames::encode(FrameType::Batch, pack('JC', 1 << 40, 4) . '')
            . Frames::encode(FrameType::Batch, pack('JC', 9, 3) . str_repeat('z', 300));
        $frames = new Frames();
        $out = [];
        foreach (str_split($stream, 7) as $chunk) {
            $frames->append($chunk);
            while (($batch = $frames->nextBatch()) !== null) {
                $out[] = [Frames::sequence($frames->sequence), $frames->format, $batch];
            }
        }

        self::assertSame([[7, 3, 'first'], [1 << 40, 4, ''], [9, 3, str_repeat('z', 300)]], $out);
        self::assertSame(0, $frames->bufferedBytes());
    }

    public function testWhereBatchesAreDueAnyOtherFrameOrAShortOneIsRefused(): void
    {
        foreach ([
            [Frames::encode(FrameType::Ack, pack('J', 1)), 'a frame of type Ack where batches were expected'],
            [Frames::encode(FrameType::Batch, pack('J', 1)), 'too short'],
            [pack('NC', 0, 9), 'a frame of type 9 where'],
            [pack('NC', 1024, FrameType::Batch->value), 'exceeds the limit of 512 bytes'],
        ] as [$bytes, $why]) {
            $frames = new Frames(Frames::HANDSHAKE_PAYLOAD);
            $frames->append($bytes);
            try {
                $frames->nextBatch();
                self::fail("took {$why}");
            } catch (FrameException $e) {
                self::assertStringContainsString($why, $e->getMessage());
            }
        }
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

    public function testBeforeTheHandshakeOnlyAHandshakeSizedFrameIsTaken(): void
    {
        $frames = new Frames(Frames::HANDSHAKE_PAYLOAD);
        $frames->append(Frames::encode(FrameType::Hello, str_repeat('h', 100)) . pack('NC', 64 * 1024 * 1024, FrameType::Batch->value));
        self::assertSame([FrameType::Hello, str_repeat('h', 100)], $frames->next());

        try {
            $frames->next();
            self::fail('a 64 MiB frame from a peer that has not proved anything was taken');
        } catch (FrameException $e) {
            self::assertStringContainsString('exceeds the limit of 512 bytes', $e->getMessage());
        }
        $frames = new Frames(Frames::HANDSHAKE_PAYLOAD);
        $frames->append(Frames::encode(FrameType::Proof, 'p') . Frames::encode(FrameType::Batch, str_repeat('b', 10_000)));
        self::assertSame(FrameType::Proof, $frames->next()[0] ?? null);
        $frames->limit(Frames::MAX_PAYLOAD); // the peer proved itself: the next frame may be large
        self::assertSame(10_000, \strlen($frames->next()[1] ?? ''));
    }

    /**
     * A 16 MiB frame read in 64 KiB chunks, then 100,000 small frames: linear work, not a copy of
     * the whole buffer per chunk (that took 0.8 s of CPU for 16 MiB, 3.1 s for 32 MiB). CPU time,
     * measured with getrusage, so that a loaded machine does not matter.
     */
    public function testReadingALargeFrameInSmallChunksCostsLinearTime(): void
    {
        $payload = str_repeat('x', Frames::MAX_PAYLOAD - 16);
        $stream = Frames::encode(FrameType::Batch, $payload);
        $small = str_repeat(Frames::encode(FrameType::Ack, pack('J', 1)), 100_000);
        $frames = new Frames();
        $count = 0;
        $bytes = 0;
        $before = self::cpuSeconds();
        for ($offset = 0, $length = \strlen($stream); $offset < $length; $offset += 65_536) {
            foreach ($frames->push(substr($stream, $offset, 65_536)) as [, $frame]) {
                ++$count;
                $bytes += \strlen($frame);
            }
        }
        for ($offset = 0, $length = \strlen($small); $offset < $length; $offset += 65_536) {
            $count += \count($frames->push(substr($small, $offset, 65_536)));
        }
        $cpu = self::cpuSeconds() - $before;

        self::assertSame(100_001, $count);
        self::assertSame(\strlen($payload), $bytes);
        self::assertSame(0, $frames->bufferedBytes());
        self::assertLessThan(0.4, $cpu, "{$cpu} s of CPU to split 16 MiB and 100,000 small frames (about 0.05 s when linear)");
    }

    private static function cpuSeconds(): float
    {
        $usage = getrusage();
        self::assertIsArray($usage);
        $seconds = 0.0;
        foreach (['ru_utime', 'ru_stime'] as $kind) {
            $whole = $usage["{$kind}.tv_sec"] ?? 0;
            $micros = $usage["{$kind}.tv_usec"] ?? 0;
            self::assertIsInt($whole);
            self::assertIsInt($micros);
            $seconds += $whole + $micros / 1e6;
        }

        return $seconds;
    }

    public function testASequenceNeedsEightBytes(): void
    {
        $this->expectException(FrameException::class);
        Frames::sequence('short');
    }
}
