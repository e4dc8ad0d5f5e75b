<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime\Driver;

use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\EpollDriver;
use Nexus\Runtime\Driver\PollDriver;
use Nexus\Runtime\Exception\PollFailedException;
use Nexus\Runtime\Loop;
use Nexus\Tests\Integration\Runtime\ChildProcess;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;

final class EpollDriverTest extends PollDriverTestCase
{
    protected function setUp(): void
    {
        $reason = EpollDriver::unsupportedReason();
        if ($reason !== null) {
            self::markTestSkipped("epoll is not available here: {$reason}");
        }
    }

    protected function driver(): PollDriver
    {
        return new EpollDriver(DriverFactory::descriptorLimit());
    }

    public function testTheFactoryPicksEpollWhereItWorks(): void
    {
        if (getenv(DriverFactory::ENV) !== false) {
            self::markTestSkipped(DriverFactory::ENV . ' forces a driver in this run.');
        }
        self::assertSame('epoll', DriverFactory::choice());
        self::assertInstanceOf(EpollDriver::class, (new Loop())->driver());
        self::assertStringStartsWith('epoll, up to ', DriverFactory::describe());
    }

    public function testWatchIdsPastTheEventDataBitAreReportedToo(): void
    {
        // A descriptor's only read watcher is registered with its id as the event data, under
        // 2^31; a larger id goes the way of a descriptor with several watchers.
        $driver = $this->driver();
        [$a, $b] = $this->pair();
        [$c, $d] = $this->pair();
        $driver->watchRead(0x80000001, $a);
        $driver->watchRead(0x7FFFFFFF, $c);
        fwrite($b, 'x');
        fwrite($d, 'y');

        self::assertSame(2, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([0x7FFFFFFF, 0x80000001], self::sorted($read));
        $driver->unwatch(0x80000001);
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([0x7FFFFFFF], $read);
    }

    public function testDescriptorsPastFdSetsizeAreWatched(): void
    {
        if (DriverFactory::descriptorLimit() < 1300) {
            self::markTestSkipped('The descriptor limit is too low to open a descriptor past 1024.');
        }
        $driver = $this->driver();
        $filler = [];
        for ($i = 0; $i < 520; ++$i) {
            $filler[] = $this->pair();
        }
        [$high, $peer] = $this->pair();
        $driver->watchRead(1, $high);
        fwrite($peer, 'x');

        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([1], $read);
        unset($filler);
    }

    public function testAPipeIsWatchedAfterTheProcessHoldsMoreThanFdSetsizeDescriptors(): void
    {
        if (DriverFactory::descriptorLimit() < 1300) {
            self::markTestSkipped('The descriptor limit is too low to open a descriptor past 1024.');
        }
        $pipes = [];
        $process = proc_open([\PHP_BINARY, '-r', 'echo "ready\n"; fgets(STDIN);'], [1 => ['pipe', 'w'], 0 => ['pipe', 'r']], $pipes);
        self::assertIsResource($process);
        $driver = $this->driver();
        $filler = [];
        for ($i = 0; $i < 520; ++$i) {
            $filler[] = $this->pair(); // 1,040 descriptors more: anything opened now is past 1,023
        }
        $driver->watchRead(1, $pipes[1]); // a pipe goes to the fallback stream_select()

        $deadline = microtime(true) + 10.0;
        $read = [];
        while ($read === [] && microtime(true) < $deadline) {
            $this->pollOnce($driver, 1.0, $read, $write); // asserts that the poll works
        }
        self::assertSame([1], $read, 'the pipe was reported readable');
        fwrite($pipes[0], "\n");
        fclose($pipes[0]);
        fclose($pipes[1]);
        proc_close($process);
        unset($filler);
    }

    public function testDescriptorNumbersAreFoundAgainAfterConnectionsCloseAndReopen(): void
    {
        $driver = $this->driver();
        $pairs = [];
        for ($i = 0; $i < 20; ++$i) {
            $pairs[$i] = $this->pair();
            $driver->watchRead($i, $pairs[$i][0]);
        }
        // Close every other one (watchers first), then open new ones: they get the freed numbers.
        for ($i = 0; $i < 20; $i += 2) {
            $driver->unwatch($i);
            fclose($pairs[$i][0]);
            fclose($pairs[$i][1]);
        }
        for ($i = 100; $i < 110; ++$i) {
            $pairs[$i] = $this->pair();
            $driver->watchRead($i, $pairs[$i][0]);
        }
        foreach ([1, 7, 100, 109] as $i) {
            fwrite($pairs[$i][1], 'x');
        }

        self::assertSame(4, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([1, 7, 100, 109], self::sorted($read));
    }

    public function testAStreamClosedWhileWatchedIsReportedWhenItsNumberIsTakenAgain(): void
    {
        $loop = new Loop(driver: $this->driver());
        $errors = [];
        $loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        [$mine] = $this->pair();
        $loop->onReadable($mine, static function (): void {});
        fclose($mine);
        [$other, $otherPeer] = $this->pair(); // takes the closed stream's number
        $got = '';
        $loop->onReadable($other, static function ($stream) use (&$got): void {
            $got .= fread($stream, 10);
        });
        fwrite($otherPeer, 'x');
        $loop->tick();
        $loop->tick();

        self::assertSame('x', $got);
        self::assertCount(1, $errors);
        self::assertInstanceOf(PollFailedException::class, $errors[0]);
        self::assertStringContainsString('a closed stream', $errors[0]->getMessage());
    }

    public function testAStreamClosedBeforeItIsWatchedIsNamedACulprit(): void
    {
        $driver = $this->driver();
        [$a] = $this->pair();
        [$b, $peer] = $this->pair();
        fclose($a);
        $driver->watchRead(1, $a);
        $driver->watchRead(2, $b);
        $read = $write = [];

        self::assertFalse($driver->poll(0.0, $read, $write));
        self::assertSame([1 => 'a closed stream'], $driver->culprits());
        $driver->unwatch(1);
        fwrite($peer, 'x');
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([2], $read);
    }

    public function testAForkedChildGetsAnEpollInstanceOfItsOwn(): void
    {
        if (!\function_exists('pcntl_fork')) {
            self::markTestSkipped('pcntl is not available.');
        }
        $driver = $this->driver();
        [$parentSide, $parentPeer] = $this->pair();
        [$childSide, $childPeer] = $this->pair();
        $driver->watchRead(1, $parentSide);
        $this->pollOnce($driver, 0.0, $read, $write); // the epoll instance exists before the fork
        $pid = pcntl_fork();
        if ($pid === 0) {
            // The child stops watching the parent's stream and watches its own: the parent's
            // epoll instance must not see either change.
            $driver->unwatch(1);
            $driver->watchRead(2, $childSide);
            fwrite($childPeer, 'c');
            $read = $write = [];
            $ok = $driver->poll(2.0, $read, $write) === 1 && $read === [2];
            posix_kill(posix_getpid(), $ok ? \SIGKILL : \SIGTERM);
        }
        $status = 0;
        pcntl_waitpid($pid, $status);
        \assert(\is_int($status));
        self::assertTrue(pcntl_wifsignaled($status));
        self::assertSame(\SIGKILL, pcntl_wtermsig($status), 'the child saw its own stream ready');
        fwrite($parentPeer, 'p');
        self::assertSame(1, $this->pollOnce($driver, 2.0, $read, $write));
        self::assertSame([1], $read, 'the parent still watches its stream, and not the child\'s');
    }

    /**
     * A poll tells a fork from a word the kernel wipes in the child (MADV_WIPEONFORK) holding the
     * pid, not from a getpid() call: the first driver of the child to look writes the child's pid
     * there, and a second driver made before the fork must still see that the pid is not its own
     * and open an epoll instance of its own, instead of polling the one it shares with the parent
     * (which would report what the parent registers after the fork).
     */
    #[RequiresPhpExtension('pcntl')]
    #[RequiresPhpExtension('posix')]
    public function testEveryDriverOfAForkedChildSeesTheForkAtItsNextPoll(): void
    {
        $first = $this->driver();
        $second = $this->driver();
        [$quiet] = $this->pair();
        [$go, $goPeer] = $this->pair();
        [$extra, $extraPeer] = $this->pair();
        $second->watchRead(1, $quiet);
        $this->pollOnce($first, 0.0, $read, $write);
        $this->pollOnce($second, 0.0, $read, $write); // both epoll instances exist before the fork
        $pid = pcntl_fork();
        if ($pid === 0) {
            // The first driver looks first (its watch change reopens it and writes the word).
            $first->watchRead(2, $go);
            $read = $write = [];
            $woken = $first->poll(5.0, $read, $write) === 1 && $read === [2];
            // The parent has now put $extra, which has bytes, into its instance of the second
            // driver: the child's second driver must not report it.
            $read = $write = [];
            $ok = $woken && $second->poll(0.0, $read, $write) === 0 && $read === [];
            posix_kill(posix_getpid(), $ok ? \SIGKILL : \SIGTERM);
        }
        fwrite($extraPeer, 'x');
        $second->watchRead(3, $extra);
        fwrite($goPeer, 'g');
        $status = 0;
        pcntl_waitpid($pid, $status);
        \assert(\is_int($status));
        self::assertTrue(pcntl_wifsignaled($status));
        self::assertSame(\SIGKILL, pcntl_wtermsig($status), "the child's second driver polled an epoll instance of its own");
        self::assertSame(1, $this->pollOnce($second, 2.0, $read, $write));
        self::assertSame([3], $read, 'the parent sees what it registered after the fork');
    }

    /**
     * A signal ends epoll_wait() with EINTR, and PHP runs the signal's handler as soon as the call
     * returns, before the driver reads errno: a handler that leaves another errno behind (here
     * EAGAIN, from a read of an empty non-blocking socket, as the loop's own wake-up write can)
     * must not turn the interruption into a failed poll.
     */
    #[RequiresPhpExtension('pcntl')]
    #[RequiresPhpExtension('posix')]
    public function testASignalWhoseHandlerChangesErrnoStillCountsAsAnInterruptedWait(): void
    {
        $driver = $this->driver();
        [$watched] = $this->pair();
        [$empty] = $this->pair();
        stream_set_blocking($empty, false);
        $driver->watchRead(1, $watched);
        $asyncSignals = pcntl_async_signals(true);
        $handled = 0;
        pcntl_signal(\SIGUSR2, static function () use ($empty, &$handled): void {
            ++$handled;
            @fread($empty, 1); // EAGAIN
        });
        $child = new ChildProcess('usleep(100000); posix_kill((int) $argv[1], SIGUSR2);', [(string) getmypid()]);
        try {
            $read = $write = [];
            $start = hrtime(true);
            $ready = $driver->poll(5.0, $read, $write);
            $waited = (hrtime(true) - $start) / 1e9;
        } finally {
            pcntl_signal(\SIGUSR2, \SIG_DFL);
            pcntl_async_signals($asyncSignals);
        }

        self::assertSame(0, $child->close());
        self::assertSame(1, $handled);
        self::assertSame(0, $ready, 'the interrupted wait reports nothing ready, not a failure: ' . $driver->lastError());
        self::assertSame([], $read);
        self::assertLessThan(4.0, $waited, 'the signal ended the wait');
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
