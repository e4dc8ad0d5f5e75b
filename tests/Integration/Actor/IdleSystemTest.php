<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Log\MemoryLogger;
use PHPUnit\Framework\TestCase;

final class IdleSystemTest extends TestCase
{
    public function testAnIdleActorSystemUsesAlmostNoCpu(): void
    {
        $system = new ActorSystem('idle', new MemoryLogger());
        for ($i = 0; $i < 1000; ++$i) {
            $system->spawn(Behavior::ignore());
        }
        $system->spawn(Behavior::setup(static function (ActorContext $ctx): Behavior {
            $ctx->timers()->startSingleTimer('stop', 'stop', 0.6);

            return Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
                $ctx->system()->shutdown();
            });
        }));
        $system->loop->runUntilIdle(); // start everyone before measuring

        $cpuBefore = self::cpuSeconds();
        $wallBefore = hrtime(true);
        $system->run();
        $wall = (hrtime(true) - $wallBefore) / 1e9;
        $cpu = self::cpuSeconds() - $cpuBefore;

        self::assertGreaterThanOrEqual(0.55, $wall, 'the system stayed up until its timer');
        self::assertLessThan(0.06, $cpu, sprintf('an idle system must block, not spin: %.3f s of CPU in %.3f s', $cpu, $wall));
    }

    private static function cpuSeconds(): float
    {
        $usage = getrusage();
        \assert(\is_array($usage) && \is_int($usage['ru_utime.tv_sec']) && \is_int($usage['ru_utime.tv_usec'])
            && \is_int($usage['ru_stime.tv_sec']) && \is_int($usage['ru_stime.tv_usec']));

        return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
    }
}
