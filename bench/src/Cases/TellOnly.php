<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * The cost of tell() alone: only the loop of 100K tells is timed. The messages are handled
 * afterwards, untimed, and counted.
 */
final class TellOnly implements BenchCase
{
    private const MESSAGES = 100_000;

    private int $messages = 0;
    private ?Tally $tally = null;

    public function name(): string
    {
        return 'actor.tell';
    }

    public function unit(): string
    {
        return 'tells/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '100K tells to one actor; only the tell loop is timed, the handling is not';
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
        $elapsed = hrtime(true) - $start;

        $system->loop->runUntilIdle();
        Bench::dispose($system);

        return Bench::perSecond($messages, $elapsed);
    }

    public function verify(): void
    {
        Check::ran($this->name(), $this->tally)->expectSequence($this->name(), $this->messages);
    }
}
