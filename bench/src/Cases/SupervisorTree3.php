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
 * AirsSys's small supervision tree: a one-for-one supervisor whose setup() spawns 3 children,
 * spawned and run until all 4 have started; the time per tree, over 1,000 trees.
 */
final class SupervisorTree3 implements BenchCase
{
    private const TREES = 1_000;
    private const CHILDREN = 3;

    private int $trees = 0;
    private ?Tally $supervisors = null;
    private ?Tally $children = null;

    public function name(): string
    {
        return 'supervisor.tree3';
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
        return 'spawn a supervisor whose setup() spawns 3 children, run until all 4 started; per tree';
    }

    public function run(int $scale): float
    {
        $this->trees = $trees = Bench::scaled(self::TREES, $scale, 10);
        $this->supervisors = $supervisors = new Tally();
        $this->children = $children = new Tally();
        $system = Bench::system();
        $childProps = Spawn::countingProps($children);
        $idle = Behavior::ignore();
        $treeProps = Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($supervisors, $childProps, $idle): Behavior {
            ++$supervisors->count;
            for ($i = 0; $i < self::CHILDREN; ++$i) {
                $ctx->spawn($childProps);
            }

            return $idle;
        }))->withSupervisor(SupervisorStrategy::oneForOne());
        $loop = $system->loop;

        $start = hrtime(true);
        for ($t = 0; $t < $trees; ++$t) {
            $system->spawn($treeProps);
            $loop->runUntilIdle();
        }
        $elapsed = hrtime(true) - $start;

        Bench::dispose($system);

        return Bench::microsEach($elapsed, $trees);
    }

    public function verify(): void
    {
        Check::same($this->name(), 'supervisors started', $this->trees, Check::ran($this->name(), $this->supervisors)->count);
        Check::same($this->name(), 'children started', $this->trees * self::CHILDREN, Check::ran($this->name(), $this->children)->count);
    }
}
