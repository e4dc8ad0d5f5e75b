<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Worker\Codec\BatchLayout;
use Nexus\Worker\Codec\Codecs;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Codec\NativeCodec;
use Nexus\Worker\Exception\FrameException;
use PHPUnit\Framework\TestCase;

final class BatchLayoutTest extends TestCase
{
    /** @var list<array{string, mixed, int, string}> */
    private const MESSAGES = [
        ['/user/a', 1, 0, '/user/pump'],
        ['/user/b', 'two', 0, '/user/pump'],
        ['/user/a', [3], -1, ''],
        ['/user/c', 4, 1, '/temp/g1.7'],
        ['/user/c', 5, 1, '/temp/g1.7'],
        ['/user/a', 6, 0, '/user/pump'],
    ];

    public function testTheSenderIsWrittenOncePerRunAndEveryMessageReadsBackWithItsOwn(): void
    {
        $batch = BatchLayout::build([], self::MESSAGES);

        self::assertSame([
            [],
            0, '/user/pump', '/user/a', 1, '/user/b', 'two',
            -1, '', '/user/a', [3],
            1, '/temp/g1.7', '/user/c', 4, '/user/c', 5,
            0, '/user/pump', '/user/a', 6,
        ], $batch);
        self::assertSame(self::MESSAGES, BatchLayout::messages($batch));
        self::assertSame(6, BatchLayout::count($batch));
        self::assertSame([[], -1, '', '/user/x', 'm'], BatchLayout::single('/user/x', 'm', -1, ''));
    }

    public function testTheSenderInEffectAtAPositionIsTheLastOneBeforeIt(): void
    {
        $batch = BatchLayout::build([], self::MESSAGES);

        self::assertSame([-1, ''], BatchLayout::senderAt($batch, BatchLayout::FIRST));
        self::assertSame([0, '/user/pump'], BatchLayout::senderAt($batch, 5), 'at the second message');
        self::assertSame([1, '/temp/g1.7'], BatchLayout::senderAt($batch, 15), 'at the fifth message');
        self::assertSame(\array_slice(self::MESSAGES, 4), BatchLayout::messages($batch, 15), 'resuming there keeps each sender');
    }

    public function testASplitKeepsOrderAndGivesEachHalfItsSender(): void
    {
        $batch = BatchLayout::build(['A\\Class'], self::MESSAGES);
        $halves = BatchLayout::split($batch);
        self::assertNotNull($halves);
        [$first, $second] = $halves;

        self::assertSame(['A\\Class'], $first[0]);
        self::assertSame(['A\\Class'], $second[0]);
        self::assertSame(\array_slice(self::MESSAGES, 0, 3), BatchLayout::messages($first));
        self::assertSame(\array_slice(self::MESSAGES, 3), BatchLayout::messages($second));
        self::assertNull(BatchLayout::split(BatchLayout::single('/user/x', 'm', -1, '')), 'one message cannot be split');
    }

    public function testValuesThatFitNoPairAreSkippedAndTheRestStillReads(): void
    {
        // What another process could send: a float where a path or sender is due, a sender
        // whose path is not a string.
        $batch = [[], 0, '/user/pump', '/user/a', 1, 2.5, '/user/b', 2, 7, null, '/user/c', 3];

        self::assertSame([
            ['/user/a', 1, 0, '/user/pump'],
            ['/user/b', 2, 0, '/user/pump'],
            ['/user/c', 3, 0, '/user/pump'],
        ], BatchLayout::messages($batch));
    }

    /**
     * Formats 1 and 2 carried four values per message: a batch from a worker of that version (the
     * old workers of the reload that brings this one in) is read in this layout, every message
     * with its own sender; a format neither version wrote is refused.
     */
    public function testABatchOfTheFormerVersionIsReadInThisLayout(): void
    {
        $classes = new MessageClasses();
        $former = [[], '/user/a', 'hello', -1, '', '/user/b', [2], 0, '/user/pump', '/user/b', 3, 0, '/user/pump', 7];
        $expected = [['/user/a', 'hello', -1, ''], ['/user/b', [2], 0, '/user/pump'], ['/user/b', 3, 0, '/user/pump']];
        $cases = [[new NativeCodec($classes), MessageCodec::FORMER_NATIVE, serialize($former)], [Codecs::best($classes), MessageCodec::FORMER_NATIVE, serialize($former)]];
        if (\function_exists('igbinary_serialize')) {
            $cases[] = [Codecs::best($classes), MessageCodec::FORMER_IGBINARY, (string) igbinary_serialize($former)];
        }
        foreach ($cases as [$codec, $format, $bytes]) {
            self::assertSame($expected, BatchLayout::messages($codec->decode($format, $bytes)), "{$codec->name()}, format {$format}");
        }
        $this->expectException(FrameException::class);
        $this->expectExceptionMessage('same version');
        Codecs::best($classes)->decode(9, (string) serialize($former));
    }

    public function testABatchCrossesTheCodecUnchanged(): void
    {
        $classes = new MessageClasses();
        $codec = Codecs::best($classes);
        $batch = BatchLayout::build([], self::MESSAGES);
        $format = 0;
        $bytes = $codec->encode($batch, 0, $format);
        $decoded = $codec->decode($format, $bytes);

        self::assertSame(self::MESSAGES, BatchLayout::messages($decoded));
    }
}
