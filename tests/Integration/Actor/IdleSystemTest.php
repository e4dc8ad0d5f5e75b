<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Log\MemoryLogger;
use Nexus\Tests\Support\CpuTime;
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

        $cpuBefore = CpuTime::seconds();
        $wallBefore = hrtime(true);
        $system->run();
        $wall = (hrtime(true) - $wallBefore) / 1e9;
        $cpu = CpuTime::seconds() - $cpuBefore;

        self::assertGreaterThanOrEqual(0.55, $wall, 'the system stayed up until its timer');
        self::assertLessThan(0.06, $cpu, sprintf('an idle system must block, not spin: %.3f s of CPU in %.3f s', $cpu, $wall));
    }

}
