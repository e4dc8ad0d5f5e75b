<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\CpuTime;
use PHPUnit\Framework\TestCase;

/**
 * Spinning is observed through CPU time: a spinning tick burns CPU, a sleeping one burns next to
 * none. A busy machine may deschedule the spin for most of its 10 ms, so a spin counts as seen once
 * a tick burns a fifth of it, trying until a deadline (a loaded machine only makes that take more
 * tries); a sleeping tick never burns that much, however loaded the machine (a process that is
 * not running uses no CPU), which ten tries show.
 */
final class LoopSpinTest extends TestCase
{
    private const SPIN = 0.01;

    public function testWithASpinTheLoopPollsBeforeItSleepsAndStillSeesIo(): void
    {
        [$mine, $theirs] = $this->pair();
        $loop = new Loop();
        $got = '';
        $loop->onReadable($mine, static function ($stream) use (&$got): void {
            $got .= (string) fread($stream, 100);
        });

        $loop->spinBeforeBlocking(self::SPIN);
        self::assertTrue($this->spins($loop, spinExpected: true), 'the spin used the CPU');
        $loop->spinBeforeBlocking(0.0);
        self::assertFalse($this->spins($loop), 'without a spin the loop sleeps');

        $loop->spinBeforeBlocking(self::SPIN);
        fwrite($theirs, 'ping');
        $loop->tick();
        self::assertSame('ping', $got, 'a stream ready during the spin is served');
    }

    public function testWithAWindowTheLoopSpinsOnlyRightAfterActivity(): void
    {
        [$mine, $theirs] = $this->pair(); // both ends stay open: a closed peer would make $mine readable
        $loop = new Loop();
        $loop->onReadable($mine, static function (): void {});
        $loop->spinBeforeBlocking(self::SPIN, 0.5);

        self::assertFalse($this->spins($loop), 'no activity yet: the loop sleeps at once');
        self::assertTrue($this->spins($loop, markActive: true, spinExpected: true), 'right after activity the loop spins');
        fclose($theirs);
    }

    public function testTheSpinIsBounded(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        (new Loop())->spinBeforeBlocking(0.5);
    }

    /**
     * Whether a tick that waits 30 ms for a timer burns at least a fifth of the spin in CPU: tried
     * ten times, and while it has not, on until 5 s have passed when $spinExpected.
     */
    private function spins(Loop $loop, bool $markActive = false, bool $spinExpected = false): bool
    {
        $spun = false;
        $until = microtime(true) + 5.0;
        for ($try = 0; !$spun && ($try < 10 || ($spinExpected && microtime(true) < $until)); ++$try) {
            if ($markActive) {
                $loop->markActive();
            }
            $loop->delay(0.03, static function (): void {});
            $cpu = CpuTime::seconds();
            $loop->tick();
            $spun = CpuTime::seconds() - $cpu > self::SPIN / 5;
        }

        return $spun;
    }

    /**
     * @return array{resource, resource}
     */
    private function pair(): array
    {
        $pair = stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertIsArray($pair);

        return [$pair[0], $pair[1]];
    }
}
