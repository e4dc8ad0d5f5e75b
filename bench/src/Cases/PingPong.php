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
 * Two actors bounce a counter with tell(): pong replies to each ping, ping sends the next one on
 * each pong. The figure is the time per round trip (two deliveries, two handler calls).
 */
final class PingPong implements BenchCase
{
    private const ROUND_TRIPS = 50_000;

    private int $roundTrips = 0;
    private ?Tally $tally = null;

    public function name(): string
    {
        return 'actor.pingpong';
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
        return '50K tell-based round trips between two actors (pong replies, ping sends the next)';
    }

    public function run(int $scale): float
    {
        $this->roundTrips = $roundTrips = Bench::scaled(self::ROUND_TRIPS, $scale, 100);
        $this->tally = $tally = new Tally();
        $system = Bench::system();
        $pong = $system->spawn(Behavior::receive(static function (int $message, ActorContext $ctx): void {
            $ctx->reply($message);
        }));
        $ping = $system->spawn(Behavior::receive(static function (int $message) use ($tally, $pong, $roundTrips): void {
            ++$tally->count;
            $tally->sum += $message;
            if ($message + 1 < $roundTrips) {
                $pong->tell($message + 1);
            }
        }));
        $system->loop->runUntilIdle();

        $start = hrtime(true);
        $pong->tell(0, $ping);
        $system->loop->runUntilIdle();
        $elapsed = hrtime(true) - $start;

        Bench::dispose($system);

        return Bench::microsEach($elapsed, $roundTrips);
    }

    public function verify(): void
    {
        Check::ran($this->name(), $this->tally)->expectSequence($this->name(), $this->roundTrips);
    }
}
