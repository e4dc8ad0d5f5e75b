<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Loop;
use Nexus\Runtime\Runnable;
use Nexus\Runtime\Scheduler;
use Nexus\Runtime\VirtualClock;
use PHPUnit\Framework\TestCase;

/**
 * A task about to wait on what it just asked has the asked runnable run at once in a helper
 * fiber (Scheduler::runAsked()): its answer may come without a wait, and whatever the asked
 * runnable does (wait, throw) stays its own.
 */
final class RunAskedTest extends TestCase
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

    public function testTheAskedRunsAsItselfUnderNoCancellationAndTheTaskGetsItsOwnBack(): void
    {
        $scheduler = $this->scheduler;
        $task = null;
        $task = new CancellableRunnable($this->loop, function () use ($scheduler, &$task): void {
            $answerer = new ClosureRunnable(function () use ($scheduler, &$task): void {
                self::assertNotNull($scheduler->current);
                self::assertNotSame($task, $scheduler->current, 'the asked runs as itself, not as the task');
                self::assertNull($scheduler->cancellation(), 'and not under the task\'s cancellation');
                $this->log[] = 'answered';
            });
            $answer = $this->answeredBy($answerer);
            self::assertSame('answer', $answer);
            self::assertSame($task, $scheduler->current);
            self::assertSame($task, $scheduler->cancellation(), 'the task is under its own again');
            $this->log[] = 'task done';
        });
        $scheduler->schedule($task);

        $this->loop->run();

        self::assertSame(['answered', 'task done'], $this->log);
    }

    public function testAnAskedThatWaitsKeepsItsHelperAndTheTaskWaitsAsUsual(): void
    {
        /** @var Deferred<string> $later */
        $later = new Deferred($this->loop);
        $this->loop->delay(1.0, static function () use ($later): void {
            $later->resolve('later');
        });
        $this->scheduler->schedule(new ClosureRunnable(function () use ($later): void {
            $this->log[] = 'task got ' . $this->answeredBy(new ClosureRunnable(function () use ($later): void {
                $this->log[] = 'asked waits';
                $this->log[] = 'asked got ' . $later->future()->await();
            }), settleWith: $later);
        }));
        $this->scheduler->schedule(new ClosureRunnable(function (): void {
            $this->log[] = 'the queue goes on';
        }));

        $this->loop->run();

        self::assertSame(['asked waits', 'the queue goes on', 'asked got later', 'task got later'], $this->log);
        self::assertSame(1.0, $this->clock->now());
    }

    public function testAnAskedThatThrowsReachesTheErrorHandlerNotTheTask(): void
    {
        /** @var list<\Throwable> $errors */
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e;
        });
        $boom = new \RuntimeException('the asked failed');
        /** @var Deferred<string> $answer */
        $answer = new Deferred($this->loop);
        $this->loop->delay(1.0, static function () use ($answer): void {
            $answer->resolve('from elsewhere');
        });
        $this->scheduler->schedule(new ClosureRunnable(function () use ($boom, $answer): void {
            $this->log[] = 'task got ' . $this->answeredBy(new ClosureRunnable(static function () use ($boom): void {
                throw $boom;
            }), settleWith: $answer);
        }));

        $this->loop->run();

        self::assertSame([$boom], $errors);
        self::assertSame(['task got from elsewhere'], $this->log);
    }

    public function testACancelledTaskIsNotAnsweredInItsPlace(): void
    {
        /** @var Deferred<string> $never */
        $never = new Deferred($this->loop);
        $task = new CancellableRunnable($this->loop, function () use ($never): void {
            try {
                $this->answeredBy(new ClosureRunnable(function (): void {
                    $this->log[] = 'asked ran';
                }), settleWith: $never);
            } catch (CancelledException) {
                $this->log[] = 'task cancelled';
            }
        });
        $task->source->cancel();
        $this->scheduler->schedule($task);

        $this->loop->run();

        self::assertSame(['task cancelled', 'asked ran'], $this->log, 'the task gave up before running it');
    }

    /**
     * Queues $asked as LocalActorRef::ask() queues an actor (naming it as asked) and waits for the
     * answer: 'answer' once $asked has run, or what $settleWith is settled with.
     *
     * @param Deferred<string>|null $settleWith
     */
    private function answeredBy(Runnable $asked, ?Deferred $settleWith = null): string
    {
        /** @var Deferred<string> $answer */
        $answer = $settleWith ?? new Deferred($this->loop);
        $queued = new ClosureRunnable(static function () use ($asked, $answer, $settleWith): void {
            $asked->run();
            if ($settleWith === null) {
                $answer->resolve('answer');
            }
        });
        $this->scheduler->schedule($queued);
        $this->scheduler->asked = $queued;

        return $answer->future()->await();
    }
}
