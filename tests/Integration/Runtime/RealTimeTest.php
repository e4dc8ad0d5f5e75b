<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Runtime;

use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;
use PHPUnit\Framework\TestCase;

final class RealTimeTest extends TestCase
{
    public function testAVirtualClockLoopJumpsToTheNextTimerInsteadOfSleeping(): void
    {
        $clock = new VirtualClock();
        $loop = new Loop($clock);
        $firedAt = null;
        $loop->delay(3600.0, static function () use ($clock, &$firedAt): void {
            $firedAt = $clock->now();
        });

        $start = hrtime(true);
        $loop->run();
        $wall = (hrtime(true) - $start) / 1e9;

        self::assertSame(3600.0, $firedAt);
        self::assertLessThan(2.0, $wall, 'an hour of virtual time passes at once');
    }

    public function testATimerFiresAfterItsDelayInRealTime(): void
    {
        $loop = new Loop();
        $start = hrtime(true);
        $elapsed = null;
        $loop->delay(0.1, static function () use ($start, &$elapsed): void {
            $elapsed = (hrtime(true) - $start) / 1e9;
        });

        $loop->run();

        self::assertNotNull($elapsed);
        self::assertGreaterThanOrEqual(0.1, $elapsed);
        self::assertLessThan(2.0, $elapsed, 'generous: a loaded machine may be late, never early');
    }

    public function testATimerStartedByAStreamCallbackAfterALongWaitCountsFromTheCallback(): void
    {
        $loop = new Loop();
        $child = new ChildProcess('usleep(300000); echo "x";');
        $readAt = null;
        $nowInCallback = null;
        $firedAt = null;
        $turnStart = $loop->clock()->now();
        $loop->onReadable($child->stdout, static function ($stream, int $id) use ($loop, &$readAt, &$nowInCallback, &$firedAt): void {
            fread($stream, 16);
            $loop->cancel($id);
            $readAt = hrtime(true);
            $nowInCallback = $loop->now();
            $loop->delay(0.2, static function () use (&$firedAt): void {
                $firedAt = hrtime(true);
            });
        });

        $loop->run();

        self::assertNotNull($readAt);
        self::assertNotNull($firedAt);
        self::assertNotNull($nowInCallback);
        self::assertGreaterThan($turnStart + 0.2, $nowInCallback, 'now() inside the callback is the time after the wait');
        self::assertGreaterThanOrEqual(0.19, ($firedAt - $readAt) / 1e9, 'the 0.2 s timer did not fire early');
        self::assertSame(0, $child->close());
    }

    #[RequiresPhpExtension('pcntl')]
    #[RequiresPhpExtension('posix')]
    public function testASignalFromAnotherProcessWakesALoopBlockedInItsWait(): void
    {
        $asyncSignals = pcntl_async_signals();
        $loop = new Loop();
        $received = null;
        $loop->onSignal(\SIGUSR2, static function (int $signo, int $id) use ($loop, &$received): void {
            $received = $signo;
            $loop->cancel($id);
        });
        $timedOut = false;
        $watchdog = $loop->delay(5.0, static function () use ($loop, &$timedOut): void {
            $timedOut = true;
            $loop->stop();
        });
        $loop->unreference($watchdog);
        $child = new ChildProcess('usleep(100000); posix_kill((int) $argv[1], SIGUSR2);', [(string) getmypid()]);

        $start = hrtime(true);
        try {
            $loop->run();
        } finally {
            pcntl_async_signals($asyncSignals);
        }
        $wall = (hrtime(true) - $start) / 1e9;

        self::assertFalse($timedOut);
        self::assertSame(\SIGUSR2, $received);
        self::assertLessThan(2.0, $wall, 'the signal ended the wait, not the watchdog');
        self::assertSame(\SIG_DFL, pcntl_signal_get_handler(\SIGUSR2));
        self::assertSame(0, $child->close());
    }
}
