<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\SocketPair;
use Nexus\Tests\Support\CpuTime;

/**
 * Writing to a reader that takes a little at a time costs CPU in proportion to the bytes, not to
 * the bytes times the number of partial writes: the pending buffer is sent from an offset, never
 * copied whole per write. 64 MiB cost 4.4 s of CPU when the rest of the buffer was copied after
 * every partial write, 0.1 s now; the bound lies far from both, and getrusage counts only this
 * process's CPU, so a loaded machine does not move it.
 */
final class LargeWriteTest extends SocketTestCase
{
    private const BYTES = 64 * 1024 * 1024;
    private const PIECE = 1024 * 1024;
    private const PIECES = self::BYTES / self::PIECE;
    private const MAX_CPU_SECONDS = 1.5;

    public function testA64MiBWriteToASlowReaderCostsLinearCpu(): void
    {
        [$writer, $reader] = SocketPair::create($this->loop);
        $this->track($writer);
        $this->track($reader);
        $piece = str_repeat('0123456789abcdef', self::PIECE / 16);
        $received = 0;
        $hash = hash_init('crc32b');
        $reader->onData(static function (string $data) use (&$received, $hash): void {
            $received += \strlen($data);
            hash_update($hash, $data);
        });

        $cpu = CpuTime::seconds();
        $writer->write(str_repeat($piece, self::PIECES >> 1)); // one big write
        for ($i = 0; $i < self::PIECES >> 1; ++$i) {
            $writer->write($piece); // and many appended to it
        }
        self::assertGreaterThan(self::BYTES / 2, $writer->bufferedBytes(), 'the kernel took only part of it: the rest is sent as the reader reads');
        $this->runUntil(static function () use (&$received): bool {
            return $received >= self::BYTES;
        });
        $spent = CpuTime::seconds() - $cpu;

        self::assertSame(self::BYTES, $received);
        self::assertSame(0, $writer->bufferedBytes());
        self::assertSame(hash('crc32b', str_repeat($piece, self::PIECES)), hash_final($hash), 'every byte arrived, in order');
        self::assertLessThan(self::MAX_CPU_SECONDS, $spent, \sprintf('%.2f s of CPU to send 64 MiB', $spent));
    }

    public function testSmallWritesCoalesceAndTheBufferedCountIsExact(): void
    {
        [$writer, $reader] = SocketPair::create($this->loop, Connection::DEFAULT_HIGH_WATER_MARK);
        $this->track($writer);
        $this->track($reader);
        $reader->pause(); // nothing is read until the writer has queued everything
        $expected = '';
        $total = 0;
        for ($i = 0; $total < 4 * 1024 * 1024; ++$i) {
            $line = "line {$i}\n";
            $expected .= $line;
            $total += \strlen($line);
            $writer->write($line);
        }
        self::assertGreaterThan(0, $writer->bufferedBytes());
        $received = '';
        $reader->onData(static function (string $data) use (&$received): void {
            $received .= $data;
        });
        $reader->resume();
        $this->runUntil(static function () use (&$received, $total): bool {
            return \strlen($received) >= $total;
        });

        self::assertSame($expected, $received);
        self::assertSame(0, $writer->bufferedBytes());
    }
}
