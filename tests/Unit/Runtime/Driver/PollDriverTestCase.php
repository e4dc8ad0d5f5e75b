<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime\Driver;

use Nexus\Runtime\Driver\PollDriver;
use PHPUnit\Framework\TestCase;

/**
 * What every PollDriver promises (see its interface), run against each driver by a subclass.
 * Waits that should find something ready are bounded by a timeout, so a broken driver fails
 * instead of hanging.
 */
abstract class PollDriverTestCase extends TestCase
{
    /** @var list<resource> */
    private array $open = [];

    abstract protected function driver(): PollDriver;

    protected function tearDown(): void
    {
        foreach ($this->open as $stream) {
            if (\is_resource($stream)) {
                fclose($stream);
            }
        }
        $this->open = [];
    }

    public function testNothingIsReadyUntilThePeerWrites(): void
    {
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        $driver->watchRead(1, $a);

        self::assertSame(0, $this->pollOnce($driver, 0.0, $read, $write));
        self::assertSame([], $read);
        fwrite($b, 'x');
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([1], $read);
        self::assertSame([], $write);
    }

    public function testReadinessIsLevelTriggered(): void
    {
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        $driver->watchRead(7, $a);
        fwrite($b, 'abc');

        $this->pollOnce($driver, 2.0, $read, $write);
        self::assertSame([7], $read);
        self::assertSame('a', fread($a, 1));
        $this->pollOnce($driver, 2.0, $read, $write);
        self::assertSame([7], $read, 'bytes are still there: reported again');
        fread($a, 10);
        self::assertSame(0, $this->pollOnce($driver, 0.0, $read, $write));
    }

    public function testAWritableStreamIsReportedToItsWriteWatcher(): void
    {
        $driver = $this->driver();
        [$a] = $this->pair();
        $driver->watchWrite(3, $a);

        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([3], $write);
        self::assertSame([], $read);
    }

    public function testReadAndWriteWatchersOfOneStreamAreBothReported(): void
    {
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        $driver->watchRead(1, $a);
        $driver->watchRead(2, $a);
        $driver->watchWrite(3, $a);
        fwrite($b, 'x');

        self::assertSame(3, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([1, 2], self::sorted($read));
        self::assertSame([3], $write);

        $driver->unwatch(3);
        $driver->unwatch(1);
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([2], $read);
        self::assertSame([], $write);
    }

    public function testTheOtherWatchersOfAStreamStayWhenTheFirstOnesGo(): void
    {
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        $driver->watchWrite(1, $a);
        $driver->watchWrite(2, $a);
        $driver->watchRead(3, $a);
        $driver->watchRead(4, $a);

        self::assertSame(2, $this->pollOnce($driver, 2.0, $read, $write), 'writable, nothing to read yet');
        self::assertSame([], $read);
        self::assertSame([1, 2], self::sorted($write));

        $driver->unwatch(1);
        $driver->unwatch(3);
        fwrite($b, 'x');
        self::assertSame(2, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([4], $read);
        self::assertSame([2], $write);

        $driver->unwatch(2);
        $driver->watchRead(5, $a);
        self::assertSame(2, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([4, 5], self::sorted($read));
        self::assertSame([], $write);
    }

    public function testARemovedWatcherIsNeverReportedAndCanBeAddedAgain(): void
    {
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        $driver->watchRead(1, $a);
        $driver->unwatch(1);
        $driver->unwatch(99); // unknown: ignored
        fwrite($b, 'x');

        self::assertSame(0, $this->pollOnce($driver, 0.05, $read, $write));
        $driver->watchRead(2, $a);
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([2], $read);
    }

    public function testAPeerThatClosedIsReportedReadable(): void
    {
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        $driver->watchRead(1, $a);
        fclose($b);

        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame('', fread($a, 10));
        self::assertTrue(feof($a));
    }

    public function testOnlyTheReadyOnesOfManyStreamsAreReported(): void
    {
        $driver = $this->driver();
        $peers = [];
        for ($i = 0; $i < 50; ++$i) {
            [$a, $b] = $this->pair();
            $driver->watchRead($i, $a);
            $peers[$i] = $b;
        }
        fwrite($peers[4], 'x');
        fwrite($peers[41], 'y');

        self::assertSame(2, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([4, 41], self::sorted($read));
    }

    public function testAStreamThatIsNotASocketIsWatchedToo(): void
    {
        $driver = $this->driver();
        $pipes = [];
        $process = proc_open([\PHP_BINARY, '-r', 'echo "ready\n"; fgets(STDIN);'], [1 => ['pipe', 'w'], 0 => ['pipe', 'r']], $pipes);
        self::assertIsResource($process);
        [$socket, $peer] = $this->pair();
        $driver->watchRead(1, $pipes[1]);
        $driver->watchRead(2, $socket);
        fwrite($peer, 'x');

        $seen = [];
        $deadline = microtime(true) + 10.0;
        while (\count($seen) < 2 && microtime(true) < $deadline) {
            $this->pollOnce($driver, 1.0, $read, $write);
            $seen = array_values(array_unique([...$seen, ...$read]));
        }
        self::assertSame([1, 2], self::sorted($seen), 'a pipe and a socket in one wait');
        fwrite($pipes[0], "\n");
        fclose($pipes[0]);
        fclose($pipes[1]);
        proc_close($process);
    }

    public function testAPollWithNothingReadyWaitsAboutItsTimeout(): void
    {
        $driver = $this->driver();
        [$a] = $this->pair();
        $driver->watchRead(1, $a);
        $start = hrtime(true);

        self::assertSame(0, $this->pollOnce($driver, 0.05, $read, $write));
        self::assertGreaterThanOrEqual(0.045, (hrtime(true) - $start) / 1e9, 'it waited instead of returning at once');
    }

    public function testTheCapacityCoversAThousandDescriptors(): void
    {
        self::assertGreaterThanOrEqual(1000, $this->driver()->capacity());
        self::assertNotSame('', $this->driver()->name());
    }

    /**
     * @param list<int>|null $read
     * @param list<int>|null $write
     *
     * @param-out list<int> $read
     * @param-out list<int> $write
     */
    protected function pollOnce(PollDriver $driver, ?float $timeout, ?array &$read, ?array &$write): int
    {
        $read = $write = [];
        $ready = $driver->poll($timeout, $read, $write);
        self::assertNotFalse($ready, 'the poll failed: ' . $driver->lastError());

        return $ready;
    }

    /**
     * @return array{resource, resource}
     */
    protected function pair(): array
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            self::fail('no socket pair');
        }
        stream_set_blocking($pair[0], false);
        stream_set_blocking($pair[1], false);
        $this->open[] = $pair[0];
        $this->open[] = $pair[1];

        return [$pair[0], $pair[1]];
    }

    /**
     * @param list<int> $ids
     *
     * @return list<int>
     */
    private static function sorted(array $ids): array
    {
        sort($ids);

        return $ids;
    }
}
