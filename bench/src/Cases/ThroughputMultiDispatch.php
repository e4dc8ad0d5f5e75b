<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * 100 rounds of one message to each of 50 actors, running the loop until idle after every round:
 * many small dispatches instead of one long one. Repeated in fresh systems (Bench::rounds()).
 */
final class ThroughputMultiDispatch implements BenchCase
{
    private const ACTORS = 50;
    private const ROUNDS = 100;

    private int $rounds = 0;
    /** @var list<Tally> */
    private array $tallies = [];

    public function name(): string
    {
        return 'actor.throughput.multidispatch';
    }

    public function unit(): string
    {
        return 'msgs/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '100 rounds of 1 tell to each of 50 actors, the loop run until idle after each round (x10 per run)';
    }

    public function run(int $scale): float
    {
        $this->rounds = $rounds = Bench::scaled(self::ROUNDS, $scale, 5);
        $repeats = Bench::rounds($scale);
        $this->tallies = [];
        $elapsed = 0;
        for ($repeat = 0; $repeat < $repeats; ++$repeat) {
            $system = Bench::system();
            $actors = [];
            for ($a = 0; $a < self::ACTORS; ++$a) {
                $this->tallies[] = $tally = new Tally();
                $actors[] = $system->spawn(Behavior::receive(static function (int $message) use ($tally): void {
                    ++$tally->count;
                    $tally->sum += $message;
                }));
            }
            $loop = $system->loop;
            $loop->runUntilIdle();
            gc_collect_cycles();

            $start = hrtime(true);
            for ($round = 0; $round < $rounds; ++$round) {
                foreach ($actors as $actor) {
                    $actor->tell($round);
                }
                $loop->runUntilIdle();
            }
            $elapsed += hrtime(true) - $start;

            Bench::dispose($system);
        }

        return Bench::perSecond(self::ACTORS * $rounds * $repeats, $elapsed);
    }

    public function verify(): void
    {
        Check::that($this->name(), $this->tallies !== [] && \count($this->tallies) % self::ACTORS === 0, 'expected a whole number of repeats of ' . self::ACTORS . ' actors, got ' . \count($this->tallies) . '.');
        foreach ($this->tallies as $tally) {
            $tally->expectSequence($this->name(), $this->rounds);
        }
    }
}
