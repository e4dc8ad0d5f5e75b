<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Loop;
use Nexus\Tests\Support\CpuTime;
use PHPUnit\Framework\TestCase;

final class LoopSpinTest extends TestCase
{
    public function testWithASpinTheLoopPollsBeforeItSleepsAndStillSeesIo(): void
    {
        [$mine, $theirs] = $this->pair();
        $loop = new Loop();
        $got = '';
        $loop->onReadable($mine, static function ($stream) use (&$got): void {
            $got .= (string) fread($stream, 100);
        });
        $loop->delay(0.03, static function (): void {});

        $loop->spinBeforeBlocking(0.01);
        $cpu = CpuTime::seconds();
        $loop->tick(); // nothing ready: polls for 10 ms, then sleeps until the timer
        $spun = CpuTime::seconds() - $cpu;

        $loop->spinBeforeBlocking(0.0);
        $loop->delay(0.03, static function (): void {});
        $cpu = CpuTime::seconds();
        $loop->tick();
        $slept = CpuTime::seconds() - $cpu;

        self::assertGreaterThan(0.005, $spun, 'the spin used the CPU');
        self::assertLessThan(0.005, $slept, 'without a spin the loop sleeps');

        $loop->spinBeforeBlocking(0.01);
        fwrite($theirs, 'ping');
        $loop->tick();
        self::assertSame('ping', $got, 'a stream ready during the spin is served');
    }

    public function testTheSpinIsBounded(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        (new Loop())->spinBeforeBlocking(0.5);
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
