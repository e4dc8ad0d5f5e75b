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
