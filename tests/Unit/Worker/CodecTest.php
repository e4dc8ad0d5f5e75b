<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Actor\Message\PoisonPill;
use Nexus\Worker\Codec\Codecs;
use Nexus\Worker\Codec\IgbinaryCodec;
use Nexus\Worker\Codec\IgbinaryGuard;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Codec\NativeCodec;
use Nexus\Worker\Codec\ScalarBatch;
use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\Exception\UnregisteredMessageClassException;
use PHPUnit\Framework\Attributes\RequiresFunction;
use PHPUnit\Framework\TestCase;

final class CodecTest extends TestCase
{
    public function testBothCodecsRoundTripABatch(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class);
        $batch = [$classes->all(), '/user/a', ['x' => 1, 'y' => [1.5, true, null]], 0, '', '/user/b', new Point(3, 4), 1, '/temp/9', '/user/c', new PoisonPill(), -1, ''];
        $codecs = [new NativeCodec($classes)];
        if (\function_exists('igbinary_serialize')) {
            $codecs[] = new IgbinaryCodec($classes);
        }

        foreach ($codecs as $codec) {
            $format = 0;
            $bytes = $codec->encode($batch, MessageClasses::OBJECTS, $format);
            self::assertEquals($batch, $codec->decode($format, $bytes), $codec->name());
        }
        self::assertSame(\function_exists('igbinary_serialize') ? 'igbinary' : 'serialize', Codecs::best($classes)->name());
    }

    #[RequiresFunction('igbinary_serialize')]
    public function testIgbinaryCarriesObjectsAsNumbersIntoTheClassTableAndFallsBackToSerializeForWhatTheGuardRefuses(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class, Flat::class, Suit::class);
        $codec = new IgbinaryCodec($classes);
        $format = 0;

        $objects = [$codec->classTable(), '/user/a', new Point(1, new Flat(2, 'two')), 0, '', '/user/a', new Flat(3, null), 0, ''];
        $bytes = $codec->encode($objects, MessageClasses::OBJECTS, $format);
        self::assertSame(MessageCodec::IGBINARY, $format);
        self::assertEquals($objects, $codec->decode($format, $bytes));

        $enum = [$codec->classTable(), '/user/a', Suit::Hearts, 0, ''];
        $bytes = $codec->encode($enum, MessageClasses::OBJECTS | MessageClasses::CUSTOM, $format);
        self::assertSame(MessageCodec::NATIVE, $format, 'igbinary writes an enum with a type the guard refuses');
        self::assertSame([$codec->classTable(), '/user/a', Suit::Hearts, 0, ''], $codec->decode($format, $bytes));

        $plain = [[], '/user/a', [str_repeat('z', 70_000)], 0, ''];
        $bytes = $codec->encode($plain, 0, $format);
        self::assertSame(MessageCodec::IGBINARY, $format, 'no byte that could start an object: nothing to tokenize');
        self::assertSame($plain, $codec->decode($format, $bytes));

        $binary = [[], '/user/a', [str_repeat("\x17", 70_000)], 0, ''];
        $bytes = $codec->encode($binary, 0, $format);
        self::assertSame(MessageCodec::NATIVE, $format, 'a string of 64 KiB or more has a 32-bit length the guard does not read');
        self::assertSame($binary, $codec->decode($format, $bytes));

        $ints = [[], '/user/a', 23, 0, '', '/user/b', 24, 0, ''];
        $bytes = $codec->encode($ints, 0, $format);
        self::assertSame(MessageCodec::SCALARS, $format, 'a small batch of ints and strings: no igbinary, no guard');
        self::assertSame($ints, $codec->decode($format, $bytes));

        $floats = [[], '/user/a', 23.0, 0, ''];
        $bytes = $codec->encode($floats, 0, $format);
        self::assertSame(MessageCodec::IGBINARY, $format);
        self::assertSame($floats, $codec->decode($format, $bytes));
    }

    public function testSmallBatchesOfIntsAndStringsTravelAsScalarsThroughEitherCodec(): void
    {
        $values = [0, -1, \PHP_INT_MAX, \PHP_INT_MIN, 42, '', 'x', str_repeat('a', 251), str_repeat('b', 252), str_repeat("\xFD\xFC\x00", 30_000), '/temp/g1.7'];
        $batch = [[], ...$values, ...array_fill(0, ScalarBatch::MAX_VALUES - \count($values), 7)];
        $classes = new MessageClasses();
        $codecs = [new NativeCodec($classes)];
        if (\function_exists('igbinary_serialize')) {
            $codecs[] = new IgbinaryCodec($classes);
        }
        foreach ($codecs as $codec) {
            $format = 0;
            $bytes = $codec->encode($batch, 0, $format);
            self::assertSame(MessageCodec::SCALARS, $format, $codec->name());
            foreach ($codecs as $reader) {
                self::assertSame($batch, $reader->decode($format, $bytes), "{$codec->name()} to {$reader->name()}");
            }
        }
        self::assertSame(ScalarBatch::decode(ScalarBatch::encode($batch) ?? ''), $batch);

        $strings = [[], 0, '/user/pump'];
        for ($i = 0; $i < 500; ++$i) {
            array_push($strings, "/user/sink{$i}", "order-{$i}");
        }
        $format = 0;
        $codec = Codecs::best($classes);
        self::assertSame($strings, $codec->decode(MessageCodec::SCALARS, $codec->encode($strings, 0, $format)));
        self::assertSame(MessageCodec::SCALARS, $format, 'a large batch of strings');
        $ints = [[], 0, '/user/pump'];
        for ($i = 0; $i < 500; ++$i) {
            array_push($ints, "/user/sink{$i}", $i);
        }
        $mixed = $strings;
        for ($i = 10; $i < \count($mixed); $i += 6) {
            $mixed[$i] = $i; // from the fourth message on, one in three an int
        }

        foreach ([
            'a large batch of ints' => $ints,
            'a large batch with one int in three' => $mixed,
            'a class table' => [[Point::class], '/user/a', 1],
            'an array' => [[], '/user/a', [1]],
            'a float' => [[], '/user/a', 1.5],
            'a bool' => [[], '/user/a', true],
            'null' => [[], '/user/a', null],
        ] as $why => $other) {
            self::assertNull(ScalarBatch::encode($other), $why);
        }
    }

    public function testShortIntsTravelInThreeBytesAndBatchesOfFormatFiveAreStillRead(): void
    {
        // An ask as the asking worker sends it: its sender (worker 0, a reply address), the recipient, the message.
        $ask = [[], 0, '/temp/g1.7', '/user/echo', 65_535];
        $classes = new MessageClasses();
        $codecs = [new NativeCodec($classes)];
        if (\function_exists('igbinary_serialize')) {
            $codecs[] = new IgbinaryCodec($classes);
        }
        foreach ($codecs as $codec) {
            $format = 0;
            $bytes = $codec->encode($ask, 0, $format);
            self::assertSame(6, $format, $codec->name());
            self::assertSame("\xFE\x00\x00\x0A/temp/g1.7\x0A/user/echo\xFE\xFF\xFF", $bytes, 'each int in a marker and 2 bytes');
            self::assertSame($ask, $codec->decode($format, $bytes));
        }
        $ints = [[], 0, 1, 255, 256, 65_535, 65_536, -1, \PHP_INT_MAX, \PHP_INT_MIN];
        self::assertSame($ints, ScalarBatch::decode(ScalarBatch::encode($ints) ?? ''));
        self::assertSame("\xFE\x00\x00\xFD\x05" . '65536', ScalarBatch::encode([[], 0, 65_536]), 'a larger int as its text');

        // Format 5, as a worker of the version before writes it: ints as their text only.
        $former = "\xFD\x01" . '0' . "\x0A/temp/g1.7\x0A/user/echo\xFD\x05" . '65535';
        foreach ($codecs as $codec) {
            self::assertSame($ask, $codec->decode(MessageCodec::FORMER_SCALARS, $former), $codec->name());
            try {
                $codec->decode(MessageCodec::FORMER_SCALARS, "\xFE\x00\x00");
                self::fail('format 5 has no short int');
            } catch (FrameException $e) {
                self::assertStringContainsString('unknown value marker 254', $e->getMessage());
            }
        }
    }

    public function testOneMessageAfterItsSenderIsWrittenAsAnyLongerBatchWouldWriteIt(): void
    {
        $long = str_repeat('s', 251);
        foreach ([
            [0, '/temp/g1.7', '/user/echo', 7],
            [1, '/user/echo', '/temp/g1.7', 'pong'],
            [65_535, '', '', 0],
            [0, $long, $long, $long],
            [0, $long . 's', '/user/a', 1],
            [65_536, '/user/a', '/user/b', 1],
            [0, '/user/a', '/user/b', 65_536],
            [0, '/user/a', '/user/b', -1],
            [0, '/user/a', '/user/b', str_repeat('m', 252)],
            [-1, '', '/user/b', "\x00\xFE"],
        ] as $values) {
            $one = [[], ...$values];
            $bytes = ScalarBatch::encode($one);
            self::assertIsString($bytes);
            self::assertSame($one, ScalarBatch::decode($bytes));
            // A batch of seven values takes the general way: its first five must read the same.
            $longer = ScalarBatch::encode([...$one, '/user/c', 'x']);
            self::assertSame($bytes . "\x07/user/c\x01x", $longer, json_encode(array_map(static fn(mixed $v): mixed => \is_string($v) ? \strlen($v) : $v, $values)) ?: '');
        }
        self::assertNull(ScalarBatch::encode([[], 0, '/user/a', '/user/b', 1.5]), 'a float in a batch of five');
    }

    public function testAScalarBatchThatIsNotWellFormedIsAFrameError(): void
    {
        foreach ([
            'a string cut short' => "\x05abc",
            'a long string cut short' => "\xFC\x00\x01\x00\x00abc",
            'a long string without its length' => "\xFC\x00\x01",
            'an int cut short' => "\xFD\x03" . '12',
            'an int without its length' => "\xFD",
            'an empty int' => "\xFD\x00",
            'an int with a leading zero' => "\xFD\x02" . '01',
            'an int with a plus' => "\xFD\x02" . '+1',
            'an int that is not a number' => "\xFD\x03" . 'abc',
            'an int too large' => "\xFD\x14" . '99999999999999999999',
            'an unknown marker' => "\x01a\xFF",
            'a short int cut short' => "\x01a\xFE\x01",
            'a short int without its bytes' => "\xFE",
        ] as $why => $bytes) {
            try {
                ScalarBatch::decode($bytes);
                self::fail("took {$why}");
            } catch (FrameException $e) {
                self::assertStringContainsString('batch from another worker', $e->getMessage(), $why);
            }
        }
    }

    /**
     * Bytes another process could send: every way igbinary could be made to build an object of a
     * class no worker registered. None may run any code of that class.
     */
    #[RequiresFunction('igbinary_serialize')]
    public function testIgbinaryNeverBuildsAnUnregisteredClassNorRunsItsCode(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class);
        $codec = new IgbinaryCodec($classes);
        $attacks = [
            'an object with its class name inline' => (string) igbinary_serialize([[], '/user/a', new Trap(), 0, '']),
            'a class name as a string, then an object referring to it' => (string) igbinary_serialize([[], Trap::class, '/user/a', new Trap(), 0, '']),
            'the class in the table' => (string) igbinary_serialize([[Trap::class], '/user/a', new Trap(), 0, '']),
            'a registered table, then the class as a string and an object' => (string) igbinary_serialize([[Point::class], Trap::class, new Trap(), 0, '']),
            'an object id past the table' => (string) igbinary_serialize([[Point::class], Trap::class, new Point(1, 2), 0, '']),
            'a Serializable payload' => "\x00\x00\x00\x02\x14\x02\x06\x00\x14\x01\x06\x00\x11" . \chr(\strlen(Point::class)) . Point::class . "\x06\x01\x1a\x00\x1d\x02ab",
        ];
        // An object id that points past the table at a string naming the trap.
        $attacks['an object id past the table'] = str_replace("\x1a\x00", "\x1a\x01", $attacks['an object id past the table']);
        Trap::$ran = 0;
        foreach ($attacks as $name => $bytes) {
            try {
                $codec->decode(MessageCodec::IGBINARY, $bytes);
                self::fail("accepted: {$name}");
            } catch (FrameException $e) {
                self::assertStringContainsString('register the same message classes', $e->getMessage(), $name);
            }
        }
        self::assertSame(0, Trap::$ran, 'no __wakeup or __destruct of an unregistered class ran');
    }

    #[RequiresFunction('igbinary_serialize')]
    public function testIgbinaryRefusesNestingDeeperThanItsRecursionSurvives(): void
    {
        $codec = new IgbinaryCodec(new MessageClasses());
        $levels = IgbinaryGuard::MAX_ARRAYS + 10;
        $deep = "\x00\x00\x00\x02\x14\x02\x06\x00\x14\x00\x06\x01" . str_repeat("\x14\x01\x0d", $levels) . "\x00";

        $this->expectException(FrameException::class);
        $codec->decode(MessageCodec::IGBINARY, $deep);
    }

    public function testTheNativeCodecNeverBuildsAnUnregisteredClass(): void
    {
        $codec = new NativeCodec(new MessageClasses());
        Trap::$ran = 0;
        $bytes = serialize([[], new Trap()]);
        Trap::$ran = 0;
        $decoded = $codec->decode(MessageCodec::NATIVE, $bytes);

        self::assertInstanceOf(\__PHP_Incomplete_Class::class, $decoded[1]);
        self::assertSame(0, Trap::$ran);
    }

    public function testGarbageIsAFrameError(): void
    {
        $this->expectException(FrameException::class);
        (new NativeCodec(new MessageClasses()))->decode(MessageCodec::NATIVE, 'not serialized');
    }

    public function testTheCheckFindsUnregisteredObjectsAtAnyDepthAndResources(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class);
        $classes->check(['a' => [new Point(1, 2)], 'b' => 'text', 'c' => 3]);
        self::assertSame(MessageClasses::OBJECTS, $classes->found);
        $classes->register(Suit::class);
        $classes->check([Suit::Hearts]);
        self::assertSame(MessageClasses::OBJECTS | MessageClasses::CUSTOM, $classes->found, 'an enum writes itself');

        foreach ([[[new \stdClass()]], new Point(1, new \DateTimeImmutable()), [\STDIN]] as $bad) {
            try {
                $classes->check($bad);
                self::fail('accepted ' . get_debug_type($bad));
            } catch (UnregisteredMessageClassException $e) {
                self::assertNotSame('', $e->getMessage());
            }
        }
    }

    public function testTheCheckEstimatesSizeAndRefusesDeepNesting(): void
    {
        $classes = new MessageClasses();
        $classes->register(Receipt::class, Flat::class);
        self::assertGreaterThanOrEqual(100_000, $classes->check(str_repeat('a', 100_000)));
        self::assertGreaterThanOrEqual(300_000, $classes->check([str_repeat('a', 100_000), ['k' => str_repeat('b', 200_000)]]));
        self::assertGreaterThanOrEqual(50_000, $classes->check(new Flat(1, str_repeat('c', 50_000))), 'strings inside a readonly class count');
        self::assertGreaterThanOrEqual(70_000, $classes->check(new Receipt('r', 1.0, [str_repeat('d', 70_000)])));
        self::assertSame(MessageClasses::OBJECTS, $classes->found, 'objects in the last two');

        $deep = 'bottom';
        for ($i = 0; $i < MessageClasses::MAX_DEPTH + 1; ++$i) {
            $deep = [$deep];
        }
        $this->expectException(MessageTooLargeException::class);
        $classes->check($deep);
    }

    public function testOnlyExistingClassesCanBeRegistered(): void
    {
        $this->expectException(UnregisteredMessageClassException::class);
        $this->expectExceptionMessage('no such class');
        (new MessageClasses())->register('No\\Such\\Thing'); // @phpstan-ignore argument.type
    }

    public function testReadonlyClassesAreCheckedWhereverAnObjectCanHide(): void
    {
        $classes = new MessageClasses();
        $classes->register(Receipt::class, Flat::class, Point::class);
        $classes->check(new Flat(1, 'x'));
        $classes->check(new Receipt('r1', 9.5, [['tea', 2]], new Flat(2, null)));

        foreach ([
            new Receipt('r2', 1.0, [['tea', new \stdClass()]]),
            new Receipt('r3', 1.0, [], new \ArrayObject()),
        ] as $bad) {
            try {
                $classes->check($bad);
                self::fail('an unregistered object inside a readonly message crossed');
            } catch (UnregisteredMessageClassException $e) {
                self::assertStringContainsString('register its class', $e->getMessage());
            }
        }
    }

    public function testAnOrdinaryClassIsLookedIntoWhole(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class);
        $point = new \ReflectionClass(Point::class);
        self::assertFalse($point->isReadOnly(), 'Point is an ordinary class: every property is looked at');

        $this->expectException(UnregisteredMessageClassException::class);
        $classes->check(new Point(1, [new \stdClass()]));
    }
}
