<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * Top-level code asks an echo actor, awaits the reply, and repeats. Awaiting outside a fiber runs
 * the loop until the reply settles the future (one loop turn per ask). This is the fastest honest
 * form: an actor that awaits an ask suspends its fiber and is resumed through a deferred callback,
 * which costs more per round trip (see docs/performance.md).
 */
final class AskPingPong implements BenchCase
{
    private const ROUND_TRIPS = 20_000;

    private int $roundTrips = 0;
    private ?Tally $tally = null;
    private int $wrongReplies = -1;

    public function name(): string
    {
        return 'actor.ask_pingpong';
    }

    public function unit(): string
    {
        return 'us';
    }

    public function higherIsBetter(): bool
    {
        return false;
    }

    public function description(): string
    {
        return '20K ask()->await() round trips from top-level code to an echo actor';
    }

    public function run(int $scale): float
    {
        $this->roundTrips = $roundTrips = Bench::scaled(self::ROUND_TRIPS, $scale, 100);
        $this->tally = $tally = new Tally();
        $system = Bench::system();
        $echo = $system->spawn(Behavior::receive(static function (int $message, ActorContext $ctx) use ($tally): void {
            ++$tally->count;
            $tally->sum += $message;
            $ctx->reply($message);
        }));
        $system->loop->runUntilIdle();
        $wrong = 0;

        $start = hrtime(true);
        for ($i = 0; $i < $roundTrips; ++$i) {
            if ($echo->ask($i)->await() !== $i) {
                ++$wrong;
            }
        }
        $elapsed = hrtime(true) - $start;

        $this->wrongReplies = $wrong;
        Bench::dispose($system);

        return Bench::microsEach($elapsed, $roundTrips);
    }

    public function verify(): void
    {
        Check::ran($this->name(), $this->tally)->expectSequence($this->name(), $this->roundTrips);
        Check::same($this->name(), 'replies that were not the value asked', 0, $this->wrongReplies);
    }
}
