<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Scheduler;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * A task that waits on the runnable it asked has it run next, and resumes right after it
 * answered (see Scheduler), within bounds: a streak, the budget, and the queue's order for
 * everything else.
 */
final class SchedulerNextSlotTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private Scheduler $scheduler;
    /** @var list<string> */
    private array $log = [];

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $this->scheduler = $this->loop->scheduler();
    }

    public function testATaskThatWaitsOnTheRunnableItAskedHasItRunNextAndResumesRightAfter(): void
    {
        $this->scheduler->schedule($this->logs('a asks x', function (): void {
            $this->log[] = 'a got ' . $this->ask('x');
        }));
        $this->scheduler->schedule($this->logs('b'));
        $this->scheduler->schedule($this->logs('c'));

        $this->loop->tick(false);

        self::assertSame(['a asks x', 'x answers', 'a got x', 'b', 'c'], $this->log);
    }

    public function testWhatARunnableQueuesWithoutWaitingKeepsTheQueuesOrder(): void
    {
        $this->scheduler->schedule($this->logs('a', function (): void {
            $this->scheduler->schedule($this->logs('x'));
            $y = $this->logs('y');
            $this->scheduler->schedule($y);
            $this->scheduler->asked = $y; // asked, but a does not wait for it
        }));
        $this->scheduler->schedule($this->logs('b waits', function (): void {
            $this->waitOnTheVirtualClock(1.0); // a later wait does not take a's ask for its own
        }));
        $this->scheduler->schedule($this->logs('c'));

        $this->loop->run();

        self::assertSame(['a', 'b waits', 'c', 'x', 'y'], $this->log);
    }

    public function testAnAskedRunnableThatWasQueuedBeforeKeepsItsPlace(): void
    {
        $early = $this->logs('early');
        $this->scheduler->schedule($this->logs('a', function () use ($early): void {
            $this->scheduler->schedule($this->logs('x'));
            $this->scheduler->asked = $early; // queued before a ran, not by its ask
            $this->waitOnTheVirtualClock(1.0);
        }));
        $this->scheduler->schedule($early);
        $this->scheduler->schedule($this->logs('b'));

        $this->loop->run();

        self::assertSame(['a', 'early', 'b', 'x'], $this->log);
    }

    public function testTheQueueGetsItsTurnAfterAStreakOfAnswers(): void
    {
        // t asks and waits again and again; each answer runs at once (Scheduler::runAsked()); r was
        // queued behind t from the start.
        $stop = new \ArrayObject(['stop' => false]);
        $this->scheduler->schedule($this->logs('t', function () use ($stop): void {
            while ($stop['stop'] === false) {
                $this->ask('x');
            }
        }));
        $this->scheduler->schedule($this->logs('r', static function () use ($stop): void {
            $stop['stop'] = true;
        }));

        $this->loop->run();

        $r = array_search('r', $this->log, true);
        self::assertSame(1 + Scheduler::NEXT_STREAK, $r, 't, a streak of answers, then the queue');
        self::assertSame(['t', 'x answers', 'x answers'], \array_slice($this->log, 0, 3));
    }

    public function testTheQueueGetsItsTurnAfterAStreakFromTheSlot(): void
    {
        // p and q hand a turn to each other for ever: each wakes the other's wait and waits in
        // turn, so each resumption comes from the slot. r was queued behind them from the start.
        /** @var \ArrayObject<string, Deferred<null>> $turn */
        $turn = new \ArrayObject(['p' => new Deferred($this->loop), 'q' => new Deferred($this->loop)]);
        $stop = new \ArrayObject(['stop' => false]);
        foreach (['p' => 'q', 'q' => 'p'] as $self => $other) {
            $this->scheduler->schedule($this->logs($self, function () use ($self, $other, $turn, $stop): void {
                while ($stop['stop'] === false) {
                    /** @var Deferred<null> $mine */
                    $mine = new Deferred($this->loop);
                    $turn[$self] = $mine;
                    $turn[$other]?->tryResolve(null);
                    $mine->future()->await();
                    $this->log[] = $self;
                }
                $turn[$other]?->tryResolve(null);
            }));
        }
        $this->scheduler->schedule($this->logs('r', static function () use ($stop): void {
            $stop['stop'] = true;
        }));

        $this->loop->run();

        $r = array_search('r', $this->log, true);
        self::assertSame(2 + Scheduler::NEXT_STREAK, $r, 'p, q, a streak of resumptions, then the queue');
    }

    public function testSlotRunsCountAgainstTheBudget(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 5);
        $scheduler = $loop->scheduler();
        $answers = new \ArrayObject(['n' => 0]);
        $scheduler->schedule(new ClosureRunnable(static function () use ($loop, $scheduler, $answers): void {
            for ($i = 0; $i < 10; ++$i) {
                /** @var Deferred<null> $answer */
                $answer = new Deferred($loop);
                $answerer = new ClosureRunnable(static function () use ($answer, $answers): void {
                    ++$answers['n'];
                    $answer->resolve(null);
                });
                $scheduler->schedule($answerer);
                $scheduler->asked = $answerer;
                $answer->future()->await();
            }
        }));

        $loop->tick(false);
        self::assertSame(4, $answers['n'], 'the task and four answers run at once: one budget of 5');
        self::assertTrue($scheduler->hasWork(), 'the fifth answer is still to run');
        $loop->runUntilIdle();
        self::assertSame(10, $answers['n']);
    }

    public function testARunnableLeftInTheSlotWhenARunEndsGoesBehindWhatWasQueuedMeanwhile(): void
    {
        $loop = new Loop($this->clock, schedulerBudget: 1);
        $scheduler = $loop->scheduler();
        $this->loop = $loop;
        $this->scheduler = $scheduler;
        $scheduler->schedule($this->logs('a asks x', function (): void {
            $this->log[] = 'a got ' . $this->ask('x');
        }));

        $scheduler->run();
        self::assertSame(['a asks x'], $this->log, 'the budget ended with x in the slot');
        $scheduler->schedule($this->logs('b')); // from outside a run (an I/O callback): the queue
        $loop->runUntilIdle();

        self::assertSame(['a asks x', 'b', 'x answers', 'a got x'], $this->log);
    }

    public function testTasksAnsweredAtOnceServeABurstInOneFiberAndOneHelper(): void
    {
        // Fifty tasks (requests) each ask a runnable of their own (an actor) and wait for the
        // answer: each is answered before it would wait (runAsked()), and finished before the
        // next starts.
        for ($i = 0; $i < 50; ++$i) {
            $this->scheduler->schedule($this->logs("t{$i} asks", function () use ($i): void {
                $this->log[] = "t{$i} got " . $this->ask("r{$i}");
            }));
        }

        $this->loop->tick(false);

        $expected = [];
        for ($i = 0; $i < 50; ++$i) {
            array_push($expected, "t{$i} asks", "r{$i} answers", "t{$i} got r{$i}");
        }
        self::assertSame($expected, $this->log, 'all in one turn, one task after another');
        self::assertSame(2, $this->scheduler->fibersCreated(), 'the worker and one helper');
        self::assertSame(0, $this->scheduler->idleFibers(), 'no task waited: the worker was never handed over');
    }

    public function testATaskWokenByARunnableResumesRightAfterItSoTwoFibersServeABurst(): void
    {
        // The same with runnables the tasks queue without asking them (a Deferred resolved by
        // another runnable): each task waits, and resumes right after its answer, from the slot.
        for ($i = 0; $i < 50; ++$i) {
            $this->scheduler->schedule($this->logs("t{$i} waits", function () use ($i): void {
                $this->log[] = "t{$i} got " . $this->waitFor("r{$i}");
            }));
        }

        $this->loop->tick(false);

        self::assertSame(['t0 waits', 't1 waits'], \array_slice($this->log, 0, 2), 'answers queue behind the tasks');
        self::assertSame(150, \count($this->log));
        foreach (range(0, 49) as $i) {
            $answered = array_search("r{$i} answers", $this->log, true);
            self::assertSame("t{$i} got r{$i}", $this->log[$answered + 1], "t{$i} resumed right after its answer");
        }
    }

    public function testWaitersWokenOutsideARunResumeInTheOrderTheyWereWoken(): void
    {
        foreach ([3.0, 1.0, 2.0] as $seconds) {
            $this->scheduler->schedule($this->logs("wait {$seconds}", function () use ($seconds): void {
                /** @var Deferred<null> $timer */
                $timer = new Deferred($this->loop);
                $this->loop->delay($seconds, static function () use ($timer): void {
                    $timer->resolve(null);
                });
                $timer->future()->await();
                $this->log[] = "woke {$seconds}";
            }));
        }

        $this->loop->run();

        self::assertSame(['wait 3', 'wait 1', 'wait 2', 'woke 1', 'woke 2', 'woke 3'], $this->log);
    }

    public function testAFiberOfOneOwnThatThrowsWhenResumedReachesTheErrorHandlerAndTheQueueGoesOn(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $boom = new \RuntimeException('after the wait');
        $fiber = new \Fiber(static function () use ($gate, $boom): void {
            $gate->future()->await();

            throw $boom;
        });
        $fiber->start();
        $this->scheduler->schedule($this->logs('opens', static function () use ($gate): void {
            $gate->resolve(null); // the fiber's waiter takes the slot and throws out of it
        }));
        $this->scheduler->schedule($this->logs('after'));

        $this->loop->run();

        self::assertSame([$boom], $errors);
        self::assertSame(['opens', 'after'], $this->log);
        self::assertTrue($fiber->isTerminated());
        self::assertNull($this->scheduler->current);
    }

    /**
     * Asks a runnable named $name, as LocalActorRef::ask() asks an actor (queued, named as asked),
     * and waits for its answer: its name.
     */
    private function ask(string $name): string
    {
        /** @var Deferred<string> $answer */
        $answer = new Deferred($this->loop);
        $answerer = $this->logs("{$name} answers", static function () use ($answer, $name): void {
            $answer->resolve($name);
        });
        $this->scheduler->schedule($answerer);
        $this->scheduler->asked = $answerer;

        return $answer->future()->await();
    }

    /**
     * Queues a runnable named $name that resolves a Deferred, without naming it as asked, and
     * waits for it.
     */
    private function waitFor(string $name): string
    {
        /** @var Deferred<string> $answer */
        $answer = new Deferred($this->loop);
        $this->scheduler->schedule($this->logs("{$name} answers", static function () use ($answer, $name): void {
            $answer->resolve($name);
        }));

        return $answer->future()->await();
    }

    private function waitOnTheVirtualClock(float $seconds): void
    {
        /** @var Deferred<null> $timer */
        $timer = new Deferred($this->loop);
        $this->loop->delay($seconds, static function () use ($timer): void {
            $timer->resolve(null);
        });
        $timer->future()->await();
    }

    /**
     * @param (\Closure(): void)|null $then
     */
    private function logs(string $name, ?\Closure $then = null): ClosureRunnable
    {
        return new ClosureRunnable(function () use ($name, $then): void {
            $this->log[] = $name;
            if ($then !== null) {
                $then();
            }
        });
    }
}
