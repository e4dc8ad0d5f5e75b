<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Exception\ReadPendingException;
use Nexus\Io\SocketPair;

final class SocketPairTest extends SocketTestCase
{
    public function testRoundTrip(): void
    {
        [$a, $b] = SocketPair::create($this->loop);
        $this->track($a);
        $this->track($b);
        $b->onData(static function (string $data) use ($b): void {
            $b->write(strtoupper($data));
        });

        $a->write('job 1');
        self::assertSame('JOB 1', $a->read()->await());
        self::assertNull($a->remoteAddress());

        $a->close();
        $b->close();
        self::assertFalse($this->loop->isAlive());
    }

    public function testAReadinessEventDeliversOneChunkOfUpTo64KiBWhicheverSizeTheReadAskedFirst(): void
    {
        [$a, $b] = SocketPair::create($this->loop);
        $this->track($a);
        $this->track($b);
        /** @var \ArrayObject<int, string> $chunks */
        $chunks = new \ArrayObject();
        $a->onData(static function (string $data) use ($chunks): void {
            $chunks->append($data);
        });
        $burst = random_bytes(100_000);
        $received = static fn(): int => array_sum(array_map('strlen', $chunks->getArrayCopy()));

        // The first read asks for 2 KiB, comes back full and reads the rest of its 64 KiB chunk;
        // the next ones ask for 64 KiB, until a short read (the tiny message) goes back to 2 KiB.
        foreach ([$burst, 'tiny', $burst] as $message) {
            $chunks->exchangeArray([]);
            $b->write($message);
            $this->runUntil(static fn(): bool => $received() >= \strlen($message));
            self::assertSame($message, implode('', $chunks->getArrayCopy()), 'every byte, in order');
            self::assertSame(min(65_536, \strlen($message)), \strlen((string) $chunks[0]), 'the first chunk is as large as before');
            self::assertLessThanOrEqual(65_536, max([0, ...array_map('strlen', $chunks->getArrayCopy())]));
        }
    }

    public function testAClosedConnectionIsFreedWithoutTheCycleCollector(): void
    {
        [$a, $b] = SocketPair::create($this->loop);
        $this->track($b);
        $a->onData(static function (): void {});
        $b->write(str_repeat('x', 10));
        $this->runUntil(static fn(): bool => $a->bufferedBytes() === 0);
        $this->loop->runUntilIdle();
        $freed = \WeakReference::create($a);
        $collecting = gc_enabled();
        gc_disable();
        try {
            $a->close();
            unset($a);
            self::assertNull($freed->get(), 'nothing refers back to a closed connection: reference counting frees it');
        } finally {
            if ($collecting) {
                gc_enable();
            }
        }
    }

    public function testOnlyOneReadAtATime(): void
    {
        [$a, $b] = SocketPair::create($this->loop);
        $this->track($a);
        $this->track($b);
        $first = $a->read();
        try {
            $a->read();
            self::fail('a second concurrent read() must throw');
        } catch (ReadPendingException $e) {
            self::assertStringContainsString('await it', $e->getMessage());
        }
        $b->end('x');
        self::assertSame('x', $first->await());
        self::assertNull($a->read()->await());
        self::assertNull($a->read()->await(), 'EOF stays EOF');
    }

    public function testCloseResolvesAPendingReadWithNull(): void
    {
        [$a, $b] = SocketPair::create($this->loop);
        $this->track($b);
        $read = $a->read();
        $a->close();
        self::assertNull($read->await());
    }
}
