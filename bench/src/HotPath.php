<?php

declare(strict_types=1);

namespace Nexus\Bench;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Mailbox\EnqueueResult;
use Nexus\Actor\Mailbox\Mailbox;
use Nexus\Bench\Cases\BrokerEvent;
use Nexus\Runtime\Scheduler;

/**
 * The cost of each stage a message goes through, each timed on its own: finding the recipient,
 * creating the message, the mailbox, the run queue, the actor's run loop, the handler call and
 * a state transition. Each figure is the median of several timed batches after a warm-up, minus
 * the cost of the empty loop around it.
 */
final class HotPath
{
    private const SCHEDULER_BUDGET = 256;

    private float $loopOverhead = 0.0;

    public function __construct(
        public readonly int $iterations = 300_000,
        public readonly int $repeats = 7,
    ) {
        if ($iterations < self::SCHEDULER_BUDGET || $repeats < 1) {
            throw new \InvalidArgumentException('The hot path needs at least ' . self::SCHEDULER_BUDGET . ' iterations and 1 repeat.');
        }
    }

    /**
     * @return list<HotPathStage>
     */
    public function measure(): array
    {
        $n = $this->iterations;
        $this->loopOverhead = 0.0;
        $this->loopOverhead = $this->time(static function (int $n): int {
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
            }

            return hrtime(true) - $start;
        });

        $system = Bench::system();
        $tally = new Tally();
        $target = $system->spawn(Behavior::receive(static function (mixed $message) use ($tally): void {
            ++$tally->count;
        }), 'target');
        $system->spawn(Behavior::setup(static function (ActorContext $ctx): Behavior {
            $ctx->spawn(Behavior::ignore(), 'child');

            return Behavior::ignore();
        }), 'parent');
        $system->loop->runUntilIdle();

        $stages = [];
        $stages[] = new HotPathStage('producer', "ActorSystem::lookup('/user/target')", $this->lookup($system, '/user/target'));
        $stages[] = new HotPathStage('producer', "ActorSystem::lookup('/user/parent/child')", $this->lookup($system, '/user/parent/child'));
        $stages[] = new HotPathStage('producer', 'held ref (property read, no lookup)', $this->heldRef($target));
        $stages[] = new HotPathStage('producer', 'message object: new BrokerEvent($i) (no envelope in the runtime)', $this->messageCreation());

        $enqueue = $this->enqueue($target);
        $dequeue = $this->dequeue($target);
        $stages[] = new HotPathStage('mailbox', 'Mailbox::enqueue() (unbounded)', $enqueue);
        $stages[] = new HotPathStage('mailbox', 'Mailbox::dequeue()', $dequeue);

        $stages[] = new HotPathStage('scheduler', 'Scheduler::schedule() + drain, no-op Runnable', $this->schedule());

        $tell = $this->tellOnly($system, $target, $tally);
        $endToEnd = $this->endToEnd($system, $target, $tally);
        $handler = $this->handlerCall();
        $stages[] = new HotPathStage('actor', 'tell() alone (deliver, enqueue, schedule once)', $tell);
        $stages[] = new HotPathStage('actor', 'tell → handler, end to end (no-op handler)', $endToEnd);
        $stages[] = new HotPathStage('actor', 'handler: closure call ($message, $ctx)', $handler);
        $stages[] = new HotPathStage('actor', 'dispatch: end to end − handler', $endToEnd - $handler, true);
        $stages[] = new HotPathStage('actor', 'run loop: end to end − tell − handler', $endToEnd - $tell - $handler, true);

        $same = $this->endToEndWith($system, Behavior::receive(static fn(): Behavior => Behavior::same()));
        $stateful = $this->endToEndWith($system, Behavior::withState(0, static fn(int $state): int => $state + 1));
        $stages[] = new HotPathStage('state', 'receive() returning Behavior::same(), end to end', $same);
        $stages[] = new HotPathStage('state', 'withState() returning state + 1, end to end', $stateful);
        $stages[] = new HotPathStage('state', 'state transition: withState − same()', $stateful - $same, true);

        Bench::dispose($system);

        return $stages;
    }

    public function loopOverhead(): float
    {
        return $this->loopOverhead;
    }

    /**
     * @param list<HotPathStage> $stages
     */
    public static function table(array $stages): string
    {
        $rows = [['stage', 'component', 'ns/op', 'µs/op', 'M/s ceiling']];
        foreach ($stages as $stage) {
            $rows[] = [
                $stage->stage,
                $stage->component,
                sprintf('%.1f', $stage->nanoseconds),
                sprintf('%.3f', $stage->nanoseconds / 1e3),
                $stage->derived || $stage->nanoseconds <= 0.5 ? '—' : sprintf('%.1f', 1e3 / $stage->nanoseconds),
            ];
        }

        return Report::render($rows, 2);
    }

    /**
     * Median ns per iteration of $batch, minus the empty loop. $batch runs the given number of
     * iterations and returns the nanoseconds of the part it times.
     *
     * @param \Closure(int): int $batch
     */
    private function time(\Closure $batch): float
    {
        $batch($this->iterations);
        $samples = [];
        for ($r = 0; $r < $this->repeats; ++$r) {
            gc_collect_cycles();
            $samples[] = $batch($this->iterations) / $this->iterations;
        }

        return Statistics::of($samples)->median - $this->loopOverhead;
    }

    private function lookup(ActorSystem $system, string $path): float
    {
        $seen = new Tally();
        $ns = $this->time(static function (int $n) use ($system, $path, $seen): int {
            $found = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                if ($system->lookup($path) !== null) {
                    ++$found;
                }
            }
            $elapsed = hrtime(true) - $start;
            $seen->count = $found;

            return $elapsed;
        });
        Check::same('hotpath', "lookups of {$path} that found the actor", $this->iterations, $seen->count);

        return $ns;
    }

    private function heldRef(ActorRef $target): float
    {
        $holder = new RefHolder($target);
        $seen = new Tally();
        $ns = $this->time(static function (int $n) use ($holder, $target, $seen): int {
            $same = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                if ($holder->ref === $target) {
                    ++$same;
                }
            }
            $elapsed = hrtime(true) - $start;
            $seen->count = $same;

            return $elapsed;
        });
        Check::same('hotpath', 'held ref reads', $this->iterations, $seen->count);

        return $ns;
    }

    /**
     * What a message costs to create before it is queued: the runtime adds no envelope (the
     * mailbox keeps message and sender side by side), so this is the message object itself.
     */
    private function messageCreation(): float
    {
        return $this->time(static function (int $n): int {
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                $made = new BrokerEvent($i);
            }

            return hrtime(true) - $start;
        });
    }

    private function enqueue(ActorRef $sender): float
    {
        $seen = new Tally();
        $ns = $this->time(static function (int $n) use ($sender, $seen): int {
            $mailbox = new Mailbox();
            $accepted = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                if ($mailbox->enqueue($i, $sender) === EnqueueResult::Accepted) {
                    ++$accepted;
                }
            }
            $elapsed = hrtime(true) - $start;
            $seen->count = $accepted;

            return $elapsed;
        });
        Check::same('hotpath', 'enqueues accepted', $this->iterations, $seen->count);

        return $ns;
    }

    private function dequeue(ActorRef $sender): float
    {
        $seen = new Tally();
        $ns = $this->time(static function (int $n) use ($sender, $seen): int {
            $mailbox = new Mailbox();
            for ($i = 0; $i < $n; ++$i) {
                $mailbox->enqueue($i, $sender);
            }
            $taken = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                if ($mailbox->dequeue() && $mailbox->message === $i) {
                    ++$taken;
                }
            }
            $elapsed = hrtime(true) - $start;
            $seen->count = $taken;

            return $elapsed;
        });
        Check::same('hotpath', 'dequeues returning the message queued', $this->iterations, $seen->count);

        return $ns;
    }

    private function schedule(): float
    {
        $budget = self::SCHEDULER_BUDGET;
        $rounds = intdiv($this->iterations, $budget);
        $runnable = new NoopRunnable();
        $ns = $this->time(static function (int $n) use ($budget, $rounds, $runnable): int {
            $scheduler = new Scheduler($budget);
            $runnable->runs = 0;
            $start = hrtime(true);
            for ($r = 0; $r < $rounds; ++$r) {
                for ($i = 0; $i < $budget; ++$i) {
                    $scheduler->schedule($runnable);
                }
                $scheduler->run();
            }

            // Per runnable, over the iterations asked for (the last partial round is not run).
            return (int) ((hrtime(true) - $start) * $n / ($rounds * $budget));
        });
        Check::same('hotpath', 'no-op runnables run', $rounds * $budget, $runnable->runs);

        return $ns;
    }

    private function tellOnly(ActorSystem $system, ActorRef $target, Tally $tally): float
    {
        $loop = $system->loop;
        $ns = $this->time(static function (int $n) use ($target, $tally, $loop): int {
            $tally->count = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                $target->tell($i);
            }
            $elapsed = hrtime(true) - $start;
            $loop->runUntilIdle();

            return $elapsed;
        });
        Check::same('hotpath', 'messages handled after tell() alone', $this->iterations, $tally->count);

        return $ns;
    }

    private function endToEnd(ActorSystem $system, ActorRef $target, Tally $tally): float
    {
        $loop = $system->loop;
        $ns = $this->time(static function (int $n) use ($target, $tally, $loop): int {
            $tally->count = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                $target->tell($i);
            }
            $loop->runUntilIdle();

            return hrtime(true) - $start;
        });
        Check::same('hotpath', 'messages handled end to end', $this->iterations, $tally->count);

        return $ns;
    }

    private function endToEndWith(ActorSystem $system, Behavior $behavior): float
    {
        $actor = $system->spawn($behavior);
        $loop = $system->loop;
        $loop->runUntilIdle();
        $ns = $this->time(static function (int $n) use ($actor, $loop): int {
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                $actor->tell($i);
            }
            $loop->runUntilIdle();

            return hrtime(true) - $start;
        });
        $system->stop($actor);
        $loop->runUntilIdle();

        return $ns;
    }

    private function handlerCall(): float
    {
        $tally = new Tally();
        $handler = static function (mixed $message, object $ctx) use ($tally): void {
            ++$tally->count;
        };
        $ctx = new \stdClass();
        $ns = $this->time(static function (int $n) use ($handler, $ctx, $tally): int {
            $tally->count = 0;
            $start = hrtime(true);
            for ($i = 0; $i < $n; ++$i) {
                $handler($i, $ctx);
            }

            return hrtime(true) - $start;
        });
        Check::same('hotpath', 'handler calls', $this->iterations, $tally->count);

        return $ns;
    }
}
