<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * Top-level code sends 100 messages to each of 100 actors (one to each in turn), then runs the loop
 * until all are handled. Repeated in fresh systems (Bench::rounds()).
 */
final class ThroughputFanout implements BenchCase
{
    private const ACTORS = 100;
    private const MESSAGES = 100;

    private int $messages = 0;
    /** @var list<Tally> */
    private array $tallies = [];

    public function name(): string
    {
        return 'actor.throughput.fanout';
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
        return '100 actors x 100 tells each (round-robin), timed until all are handled (x10 per run)';
    }

    public function run(int $scale): float
    {
        $this->messages = $messages = Bench::scaled(self::MESSAGES, $scale, 5);
        $rounds = Bench::rounds($scale);
        $this->tallies = [];
        $elapsed = 0;
        for ($round = 0; $round < $rounds; ++$round) {
            $system = Bench::system();
            $actors = [];
            for ($a = 0; $a < self::ACTORS; ++$a) {
                $this->tallies[] = $tally = new Tally();
                $actors[] = $system->spawn(Behavior::receive(static function (int $message) use ($tally): void {
                    ++$tally->count;
                    $tally->sum += $message;
                }));
            }
            $system->loop->runUntilIdle();
            gc_collect_cycles();

            $start = hrtime(true);
            for ($i = 0; $i < $messages; ++$i) {
                foreach ($actors as $actor) {
                    $actor->tell($i);
                }
            }
            $system->loop->runUntilIdle();
            $elapsed += hrtime(true) - $start;

            Bench::dispose($system);
        }

        return Bench::perSecond(self::ACTORS * $messages * $rounds, $elapsed);
    }

    public function verify(): void
    {
        Check::that($this->name(), $this->tallies !== [] && \count($this->tallies) % self::ACTORS === 0, 'expected a whole number of rounds of ' . self::ACTORS . ' actors, got ' . \count($this->tallies) . '.');
        foreach ($this->tallies as $tally) {
            $tally->expectSequence($this->name(), $this->messages);
        }
    }
}
