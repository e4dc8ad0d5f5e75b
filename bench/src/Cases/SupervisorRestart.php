<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\Bench\Bench;
use Nexus\Bench\BenchCase;
use Nexus\Bench\Check;
use Nexus\Bench\Tally;

/**
 * Children that throw on every message, under a supervisor with the default strategy (one-for-one,
 * Restart, at most 10 restarts a minute per child). 1,000 children fail 10 times each; the figure
 * counts completed restarts: each a failure reported to the supervisor, its decision, and a fresh
 * incarnation from the Props factory that then takes the next message.
 */
final class SupervisorRestart implements BenchCase
{
    private const CHILDREN = 1_000;
    /** The default strategy's limit: one more failure within the minute stops the child. */
    private const FAILURES_EACH = 10;
    private const LIST_CHILDREN = 'children';

    private int $children = 0;
    private ?Tally $incarnations = null;
    /** @var list<Tally> */
    private array $handled = [];
    private int $childrenAfter = -1;

    public function name(): string
    {
        return 'supervisor.restart';
    }

    public function unit(): string
    {
        return 'restarts/s';
    }

    public function higherIsBetter(): bool
    {
        return true;
    }

    public function description(): string
    {
        return '1,000 children x 10 failures (one throw per message), each restarted by the default strategy';
    }

    public function run(int $scale): float
    {
        $this->children = $children = Bench::scaled(self::CHILDREN, $scale, 5);
        $this->incarnations = $incarnations = new Tally();
        $this->handled = [];
        $system = Bench::system();
        $childProps = [];
        for ($c = 0; $c < $children; ++$c) {
            $this->handled[] = $handled = new Tally();
            $failing = Behavior::receive(static function (int $message) use ($handled): never {
                ++$handled->count;
                $handled->sum += $message;

                throw new InducedFailure("Failing on purpose at message {$message}.");
            });
            $childProps[] = Props::fromFactory(static function () use ($incarnations, $failing): Behavior {
                ++$incarnations->count;

                return $failing;
            });
        }
        $supervisor = $system->spawn(Props::fromBehavior(Behavior::setup(
            static function (ActorContext $ctx) use ($childProps): Behavior {
                foreach ($childProps as $props) {
                    $ctx->spawn($props);
                }

                return Behavior::receive(static function (string $message, ActorContext $ctx): void {
                    $ctx->reply(array_values($ctx->children()));
                });
            },
        ))->withSupervisor(SupervisorStrategy::default()));
        /** @var list<ActorRef> $refs */
        $refs = $supervisor->ask(self::LIST_CHILDREN)->await();
        $system->loop->runUntilIdle();
        Check::same($this->name(), 'children started before the failures', $children, $incarnations->count);

        $start = hrtime(true);
        for ($i = 0; $i < self::FAILURES_EACH; ++$i) {
            foreach ($refs as $ref) {
                $ref->tell($i);
            }
        }
        $system->loop->runUntilIdle();
        $elapsed = hrtime(true) - $start;

        // A restart keeps the actor (and its ref); a child stopped after too many failures is gone.
        $this->childrenAfter = \count(array_filter($refs, static fn(ActorRef $ref): bool => $system->lookup($ref->path()) === $ref));
        Bench::dispose($system);

        return Bench::perSecond($children * self::FAILURES_EACH, $elapsed);
    }

    public function verify(): void
    {
        $incarnations = Check::ran($this->name(), $this->incarnations)->count;
        Check::same($this->name(), 'incarnations (first starts + restarts)', $this->children * (1 + self::FAILURES_EACH), $incarnations);
        foreach ($this->handled as $tally) {
            $tally->expectSequence($this->name(), self::FAILURES_EACH);
        }
        Check::same($this->name(), 'children alive after their restarts', $this->children, $this->childrenAfter);
    }
}
