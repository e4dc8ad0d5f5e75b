<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * A supervisor actor (one-for-one strategy) spawns 1,000 children from its handler; timed until
 * every child has started. Repeated in fresh systems (Bench::rounds()).
 */
final class SupervisorChildSpawn implements BenchCase
{
    private const CHILDREN = 1_000;
    private const COUNT_CHILDREN = 'children';

    private int $children = 0;
    private ?Tally $started = null;
    private int $reportedChildren = -1;

    public function name(): string
    {
        return 'supervisor.child_spawn';
    }

    public function unit(): string
    {
        return 'children/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return 'a one-for-one supervisor spawns 1,000 children via ctx->spawn(), timed until all started (x10 per run)';
    }

    public function run(int $scale): float
    {
        $children = Bench::scaled(self::CHILDREN, $scale, 10);
        $rounds = Bench::rounds($scale);
        $this->children = $children * $rounds;
        $this->started = $started = new Tally();
        $this->reportedChildren = 0;
        $childProps = Spawn::countingProps($started);
        $supervisorProps = Props::fromBehavior(Behavior::receive(
            static function (int|string $message, ActorContext $ctx) use ($childProps): void {
                if (\is_int($message)) {
                    for ($i = 0; $i < $message; ++$i) {
                        $ctx->spawn($childProps);
                    }
                } else {
                    $ctx->reply(\count($ctx->children()));
                }
            },
        ))->withSupervisor(SupervisorStrategy::oneForOne());
        $elapsed = 0;
        for ($round = 0; $round < $rounds; ++$round) {
            $system = Bench::system();
            $supervisor = $system->spawn($supervisorProps);
            $system->loop->runUntilIdle();
            gc_collect_cycles();

            $start = hrtime(true);
            $supervisor->tell($children);
            $system->loop->runUntilIdle();
            $elapsed += hrtime(true) - $start;

            $reported = $supervisor->ask(self::COUNT_CHILDREN)->await();
            Check::that($this->name(), \is_int($reported), 'the supervisor did not reply with its number of children.');
            $this->reportedChildren += \is_int($reported) ? $reported : 0;
            Bench::dispose($system);
        }

        return Bench::perSecond($this->children, $elapsed);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'children started', $this->children, Check::ran($this->name(), $this->started)->count);
        Check::same($this->name(), 'children the supervisors have', $this->children, $this->reportedChildren);
    }
}
