<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;

/**
 * PHP heap per idle actor: memory_get_usage() after garbage collection, before and after spawning
 * 100K started, named actors that share one Props. Everything the runtime keeps for them counts
 * (cell, ref, mailbox, name, the parent's child table, run-queue leftovers); the benchmark holds
 * no refs of its own while measuring.
 */
final class MemoryPerActor implements BenchCase
{
    private const ACTORS = 100_000;

    private int $actors = 0;
    private int $alive = -1;

    public function name(): string
    {
        return 'actor.memory_per_actor';
    }

    public function unit(): string
    {
        return 'B';
    }

    public function higherIsBetter(): bool
    {
        return false;
    }

    public function description(): string
    {
        return 'heap delta after gc of 100K idle, started actors, per actor';
    }

    public function run(int $scale): float
    {
        $this->actors = $actors = Bench::scaled(self::ACTORS, $scale, 100);
        $system = Bench::system();
        $props = Props::fromBehavior(Behavior::ignore());
        $system->loop->runUntilIdle();

        gc_collect_cycles();
        $before = memory_get_usage();
        for ($i = 0; $i < $actors; ++$i) {
            $system->spawn($props, "m{$i}");
        }
        $system->loop->runUntilIdle();
        gc_collect_cycles();
        $after = memory_get_usage();

        $alive = 0;
        for ($i = 0; $i < $actors; ++$i) {
            if ($system->lookup("/user/m{$i}") !== null) {
                ++$alive;
            }
        }
        $this->alive = $alive;
        Bench::dispose($system);

        return ($after - $before) / $actors;
    }

    public function verify(): void
    {
        Check::same($this->name(), 'actors alive when measured', $this->actors, $this->alive);
    }
}
