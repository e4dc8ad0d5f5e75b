<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Actor\Message\PoisonPill;
use Nexus\Worker\Codec\Codecs;
use Nexus\Worker\Codec\IgbinaryCodec;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\NativeCodec;
use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Exception\UnregisteredMessageClassException;
use PHPUnit\Framework\TestCase;

final class CodecTest extends TestCase
{
    public function testBothCodecsRoundTripABatch(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class);
        $batch = ['/user/a', ['x' => 1, 'y' => [1.5, true, null]], 0, '', '/user/b', new Point(3, 4), 1, '/temp/9', '/user/c', new PoisonPill(), -1, ''];
        $codecs = [new NativeCodec($classes)];
        if (\function_exists('igbinary_serialize')) {
            $codecs[] = new IgbinaryCodec();
        }

        foreach ($codecs as $codec) {
            self::assertEquals($batch, $codec->decode($codec->encode($batch)), $codec->name());
        }
        self::assertSame(\function_exists('igbinary_serialize') ? 'igbinary' : 'serialize', Codecs::best($classes)->name());
    }

    public function testTheNativeCodecNeverBuildsAnUnregisteredClass(): void
    {
        $codec = new NativeCodec(new MessageClasses());
        $decoded = $codec->decode(serialize([new Point(1, 2)]));

        self::assertInstanceOf(\__PHP_Incomplete_Class::class, $decoded[0]);
    }

    public function testGarbageIsAFrameError(): void
    {
        $this->expectException(FrameException::class);
        (new NativeCodec(new MessageClasses()))->decode('not serialized');
    }

    public function testTheCheckFindsUnregisteredObjectsAtAnyDepthAndResources(): void
    {
        $classes = new MessageClasses();
        $classes->register(Point::class);
        $classes->check(['a' => [new Point(1, 2)], 'b' => 'text', 'c' => 3]);

        foreach ([[[new \stdClass()]], new Point(1, new \DateTimeImmutable()), [\STDIN]] as $bad) {
            try {
                $classes->check($bad);
                self::fail('accepted ' . get_debug_type($bad));
            } catch (UnregisteredMessageClassException $e) {
                self::assertNotSame('', $e->getMessage());
            }
        }
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
