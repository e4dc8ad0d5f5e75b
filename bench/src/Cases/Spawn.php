<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * Spawns 1,000 top-level actors and runs the loop until all have started (their behavior created
 * by the Props factory, which counts them). Repeated in fresh systems (Bench::rounds()).
 */
final class Spawn implements BenchCase
{
    private const ACTORS = 1_000;

    private int $actors = 0;
    private ?Tally $started = null;
    private int $alive = -1;

    public function name(): string
    {
        return 'actor.spawn';
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
        return '1,000 spawns under /user, timed until every actor has started (x10 per run)';
    }

    public function run(int $scale): float
    {
        $actors = Bench::scaled(self::ACTORS, $scale, 10);
        $rounds = Bench::rounds($scale);
        $this->actors = $actors * $rounds;
        $this->started = $started = new Tally();
        $this->alive = 0;
        $props = self::countingProps($started);
        $elapsed = 0;
        for ($round = 0; $round < $rounds; ++$round) {
            $system = Bench::system();
            gc_collect_cycles();

            $start = hrtime(true);
            $refs = [];
            for ($i = 0; $i < $actors; ++$i) {
                $refs[] = $system->spawn($props);
            }
            $system->loop->runUntilIdle();
            $elapsed += hrtime(true) - $start;

            $this->alive += \count(array_filter($refs, static fn(ActorRef $ref): bool => $system->lookup($ref->path()) !== null));
            Bench::dispose($system);
        }

        return Bench::perSecond($this->actors, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'actors started', $this->actors, Check::ran($this->name(), $this->started)->count);
        Check::same($this->name(), 'actors alive after the run', $this->actors, $this->alive);
    }

    /**
     * Props whose factory counts each actor it creates.
     */
    public static function countingProps(Tally $started): Props
    {
        $behavior = Behavior::ignore();

        return Props::fromFactory(static function () use ($started, $behavior): Behavior {
            ++$started->count;

            return $behavior;
        });
    }
}
