<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;

/**
 * 100K messages to a Behavior::withState() actor whose handler returns a new state for each one.
 * The state is the next sequence number expected, so the final state proves that every message
 * arrived once and in order.
 */
final class ThroughputStateful implements BenchCase
{
    private const MESSAGES = 100_000;
    private const TOTAL = 'total';

    private int $messages = 0;
    private mixed $finalState = null;

    public function name(): string
    {
        return 'actor.throughput.stateful';
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
        return '100K tells to a withState() actor, each handler call returning the next state';
    }

    public function run(int $scale): float
    {
        $this->messages = $messages = Bench::scaled(self::MESSAGES, $scale, 100);
        $this->finalState = null;
        $system = Bench::system();
        $actor = $system->spawn(Behavior::withState(0, static function (int $expected, int|string $message, ActorContext $ctx): int {
            if (\is_int($message)) {
                // Out of order or duplicated: a state no later message can repair.
                return $message === $expected ? $expected + 1 : \PHP_INT_MIN;
            }
            $ctx->reply($expected);

            return $expected;
        }));
        $system->loop->runUntilIdle();

        $start = hrtime(true);
        for ($i = 0; $i < $messages; ++$i) {
            $actor->tell($i);
        }
        $system->loop->runUntilIdle();
        $elapsed = hrtime(true) - $start;

        $this->finalState = $actor->ask(self::TOTAL)->await();
        Bench::dispose($system);

        return Bench::perSecond($messages, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'final state (next sequence number expected)', $this->messages, $this->finalState);
    }
}
