<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Message\PoisonPill;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * 500 cycles of: spawn an actor, send it a PoisonPill, run the loop until idle. Every cycle reuses
 * the same name, which spawn() refuses while the previous incarnation is still alive: a cycle
 * only completes once the actor has really terminated. Repeated in fresh systems (Bench::rounds()).
 */
final class SpawnKill implements BenchCase
{
    private const CYCLES = 500;
    private const NAME = 'cycle';

    private int $cycles = 0;
    private ?Tally $started = null;
    private bool $aliveAfter = true;

    public function name(): string
    {
        return 'actor.spawn_kill';
    }

    public function unit(): string
    {
        return 'cycles/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '500 cycles of spawn + PoisonPill + run until idle, reusing one name (x4 per run)';
    }

    public function run(int $scale): float
    {
        $cycles = Bench::scaled(self::CYCLES, $scale, 5);
        $rounds = Bench::rounds($scale, 4);
        $this->cycles = $cycles * $rounds;
        $this->started = $started = new Tally();
        $this->aliveAfter = false;
        $props = Spawn::countingProps($started);
        $pill = new PoisonPill();
        $elapsed = 0;
        for ($round = 0; $round < $rounds; ++$round) {
            $system = Bench::system();
            $loop = $system->loop;
            gc_collect_cycles();

            $start = hrtime(true);
            for ($i = 0; $i < $cycles; ++$i) {
                $system->spawn($props, self::NAME)->tell($pill);
                $loop->runUntilIdle();
            }
            $elapsed += hrtime(true) - $start;

            $this->aliveAfter = $this->aliveAfter || $system->lookup('/user/' . self::NAME) !== null;
            Bench::dispose($system);
        }

        return Bench::perSecond($this->cycles, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'actors started', $this->cycles, Check::ran($this->name(), $this->started)->count);
        Check::same($this->name(), 'the last incarnation alive after the run', false, $this->aliveAfter);
    }
}
