<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Runtime;

use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use Nexus\Tests\Support\CpuTime;
use PHPUnit\Framework\TestCase;

/**
 * A loop with nothing to do blocks in the kernel (usleep or stream_select) instead of spinning.
 */
final class IdleCpuTest extends TestCase
{
    private const MAX_CPU_SECONDS = 0.05;

    public function testALoopWaitingForATimerUsesAlmostNoCpu(): void
    {
        // A timer is due 0.5 s after the loop's time when it was set, which the loop took when it
        // was made: on a loaded machine that can be well before measure() starts.
        $made = hrtime(true);
        $loop = new Loop();
        $fired = false;
        $loop->delay(0.5, static function () use (&$fired): void {
            $fired = true;
        });

        [$wall, $cpu] = self::measure($loop->run(...));

        self::assertTrue($fired);
        self::assertGreaterThanOrEqual(0.499, (hrtime(true) - $made) / 1e9, 'the timer did not fire early');
        self::assertLessThan(self::MAX_CPU_SECONDS, $cpu, sprintf('%.1f ms of CPU while idle for %.0f ms', $cpu * 1e3, $wall * 1e3));
    }

    public function testALoopWatchingASilentStreamAndATimerUsesAlmostNoCpu(): void
    {
        $made = hrtime(true);
        $loop = new Loop();
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        $reads = 0;
        $watcher = $loop->onReadable($pair[0], static function () use (&$reads): void {
            ++$reads;
        });
        $loop->delay(0.5, static function () use ($loop, $watcher): void {
            $loop->cancel($watcher);
        });

        [$wall, $cpu] = self::measure($loop->run(...));

        self::assertSame(0, $reads);
        self::assertGreaterThanOrEqual(0.499, (hrtime(true) - $made) / 1e9, 'the timer did not fire early');
        self::assertLessThan(self::MAX_CPU_SECONDS, $cpu, sprintf('%.1f ms of CPU while idle for %.0f ms', $cpu * 1e3, $wall * 1e3));
        fclose($pair[0]);
        fclose($pair[1]);
    }

    public function testAVirtualClockLoopWaitingOnlyForAStreamBlocksInsteadOfSpinning(): void
    {
        $loop = new Loop(new VirtualClock());
        $child = new ChildProcess('usleep(300000); echo "late";');
        $received = null;
        $loop->onReadable($child->stdout, static function ($stream, int $id) use ($loop, &$received): void {
            $received = fread($stream, 1024);
            $loop->cancel($id);
        });

        [$wall, $cpu] = self::measure($loop->run(...));

        self::assertSame('late', $received);
        self::assertGreaterThan(0.2, $wall);
        self::assertLessThan(self::MAX_CPU_SECONDS, $cpu, sprintf('%.1f ms of CPU while idle for %.0f ms', $cpu * 1e3, $wall * 1e3));
        self::assertSame(0, $child->close());
    }

    /**
     * @param \Closure(): void $work
     *
     * @return array{float, float} wall time and CPU time (user + system) of $work, in seconds
     */
    private static function measure(\Closure $work): array
    {
        $cpuBefore = CpuTime::seconds();
        $start = hrtime(true);
        $work();
        $wall = (hrtime(true) - $start) / 1e9;

        return [$wall, CpuTime::seconds() - $cpuBefore];
    }

}
