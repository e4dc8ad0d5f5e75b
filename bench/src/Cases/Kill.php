<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;

/**
 * 500 running actors each get a PoisonPill; timed until all have terminated (and their parent has
 * taken note, so that lookup() no longer finds them). Repeated in fresh systems (Bench::rounds()).
 */
final class Kill implements BenchCase
{
    private const ACTORS = 500;

    private int $actors = 0;
    private int $aliveBefore = -1;
    private int $aliveAfter = -1;

    public function name(): string
    {
        return 'actor.kill';
    }

    public function unit(): string
    {
        return 'kills/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return 'PoisonPill to 500 running actors, timed until all have terminated (x10 per run)';
    }

    public function run(int $scale): float
    {
        $actors = Bench::scaled(self::ACTORS, $scale, 5);
        $rounds = Bench::rounds($scale);
        $this->actors = $actors * $rounds;
        $this->aliveBefore = $this->aliveAfter = 0;
        $behavior = Behavior::ignore();
        $pill = new PoisonPill();
        $elapsed = 0;
        for ($round = 0; $round < $rounds; ++$round) {
            $system = Bench::system();
            $refs = [];
            for ($i = 0; $i < $actors; ++$i) {
                $refs[] = $system->spawn($behavior, "k{$i}");
            }
            $system->loop->runUntilIdle();
            $alive = static fn(ActorRef $ref): bool => $system->lookup($ref->path()) !== null;
            $this->aliveBefore += \count(array_filter($refs, $alive));
            gc_collect_cycles();

            $start = hrtime(true);
            foreach ($refs as $ref) {
                $ref->tell($pill);
            }
            $system->loop->runUntilIdle();
            $elapsed += hrtime(true) - $start;

            $this->aliveAfter += \count(array_filter($refs, $alive));
            Bench::dispose($system);
        }

        return Bench::perSecond($this->actors, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'actors alive before the PoisonPills', $this->actors, $this->aliveBefore);
        Check::same($this->name(), 'actors alive after them', 0, $this->aliveAfter);
    }
}
