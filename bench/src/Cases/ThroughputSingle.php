<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * Top-level code tells 100K messages to one actor, then runs the loop until the actor has handled
 * them all. The whole of it is timed: the same shape as baseline.loop, through the framework.
 */
final class ThroughputSingle implements BenchCase
{
    private const MESSAGES = 100_000;

    private int $messages = 0;
    private ?Tally $tally = null;

    public function name(): string
    {
        return 'actor.throughput.single';
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
        return '100K tells from top-level code to one actor, timed until all are handled';
    }

    public function run(int $scale): float
    {
        $this->messages = $messages = Bench::scaled(self::MESSAGES, $scale, 100);
        $this->tally = $tally = new Tally();
        $system = Bench::system();
        $actor = $system->spawn(Behavior::receive(static function (int $message) use ($tally): void {
            ++$tally->count;
            $tally->sum += $message;
        }));
        $system->loop->runUntilIdle();

        $start = hrtime(true);
        for ($i = 0; $i < $messages; ++$i) {
            $actor->tell($i);
        }
        $system->loop->runUntilIdle();
        $elapsed = hrtime(true) - $start;

        Bench::dispose($system);

        return Bench::perSecond($messages, $elapsed);
    }

    public function verify(): void
    {
        Check::ran($this->name(), $this->tally)->expectSequence($this->name(), $this->messages);
    }
}
