<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * AirsSys's batch spawn: 10 actors spawned, then the loop run until they have started; repeated
 * 100 times, in fresh systems Bench::rounds() times per run.
 */
final class SpawnBatch10 implements BenchCase
{
    private const BATCH = 10;
    private const BATCHES = 100;

    private int $actors = 0;
    private ?Tally $started = null;

    public function name(): string
    {
        return 'actor.spawn.batch10';
    }

    public function unit(): string
    {
        return 'actors/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '100 batches of 10 spawns, the loop run until idle after each batch (x10 per run)';
    }

    public function run(int $scale): float
    {
        $batches = Bench::scaled(self::BATCHES, $scale, 2);
        $rounds = Bench::rounds($scale);
        $this->actors = $batches * self::BATCH * $rounds;
        $this->started = $started = new Tally();
        $props = Spawn::countingProps($started);
        $elapsed = 0;
        for ($round = 0; $round < $rounds; ++$round) {
            $system = Bench::system();
            $loop = $system->loop;
            gc_collect_cycles();

            $start = hrtime(true);
            for ($b = 0; $b < $batches; ++$b) {
                for ($i = 0; $i < self::BATCH; ++$i) {
                    $system->spawn($props);
                }
                $loop->runUntilIdle();
            }
            $elapsed += hrtime(true) - $start;

            Bench::dispose($system);
        }

        return Bench::perSecond($this->actors, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'actors started', $this->actors, Check::ran($this->name(), $this->started)->count);
    }
}
