<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * A producer actor sends a burst of 50K messages to a consumer from inside one handler (so the
 * sender is an actor, as in most real traffic), then the consumer drains them.
 */
final class ThroughputBurst implements BenchCase
{
    private const MESSAGES = 50_000;

    private int $messages = 0;
    private ?Tally $tally = null;

    public function name(): string
    {
        return 'actor.throughput.burst';
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
        return 'a producer actor bursts 50K tells to a consumer actor from one handler';
    }

    public function run(int $scale): float
    {
        $this->messages = $messages = Bench::scaled(self::MESSAGES, $scale, 100);
        $this->tally = $tally = new Tally();
        $system = Bench::system();
        $consumer = $system->spawn(Behavior::receive(static function (int $message) use ($tally): void {
            ++$tally->count;
            $tally->sum += $message;
        }));
        $producer = $system->spawn(Behavior::receive(static function (int $burst) use ($consumer): void {
            for ($i = 0; $i < $burst; ++$i) {
                $consumer->tell($i);
            }
        }));
        $system->loop->runUntilIdle();

        $start = hrtime(true);
        $producer->tell($messages);
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
