<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Loop;
use Nexus\Runtime\VirtualClock;
use Nexus\Tests\Unit\Runtime\ClosureRunnable;
use PHPUnit\Framework\TestCase;

/**
 * Tasks on the run queue (as HTTP handlers are) that ask a local actor and wait: the asked actor
 * runs right after its asker waits and the asker resumes right after the reply (see Scheduler),
 * and every outcome of an ask stays what it was: answers in mailbox order behind a busy actor,
 * an actor that stops or fails, a reply after the timeout, an actor that waits itself.
 */
final class AskFromTasksTest extends TestCase
{
    private VirtualClock $clock;
    private Loop $loop;
    private ActorSystem $system;
    /** @var list<string> */
    private array $log = [];

    protected function setUp(): void
    {
        $this->clock = new VirtualClock();
        $this->loop = new Loop($this->clock);
        $this->system = new ActorSystem('tasks', new MemoryLogger(), $this->loop);
    }

    public function testEachTaskIsAnsweredBeforeTheNextStartsWithoutWaiting(): void
    {
        $echo = $this->system->spawn(Behavior::receive(function (int $n, ActorContext $ctx): void {
            $this->log[] = "actor {$n}";
            $ctx->reply($n);
        }));
        $this->loop->runUntilIdle();
        for ($i = 0; $i < 120; ++$i) { // 240 runnables (each task and its answer): one budget (256)
            $this->task($echo, $i);
        }

        $this->loop->tick(false);

        $expected = [];
        for ($i = 0; $i < 120; ++$i) {
            array_push($expected, "ask {$i}", "actor {$i}", "got {$i}");
        }
        self::assertSame($expected, $this->log);
        self::assertSame(2, $this->system->scheduler->fibersCreated(), 'the worker and the helper that runs the actor');
        self::assertSame(0, $this->system->scheduler->idleFibers(), 'no task waited: the worker was never handed over');
    }

    public function testABusyActorAnswersInMailboxOrderBehindItsBacklog(): void
    {
        $counter = $this->system->spawn(Behavior::withState(0, static function (int $count, mixed $message, ActorContext $ctx): int {
            if ($message === 'get') {
                $ctx->reply($count);

                return $count;
            }

            return $count + 1;
        }));
        $this->loop->runUntilIdle();
        for ($i = 0; $i < 150; ++$i) {
            $counter->tell('add'); // more than one turn's throughput (64) queued before the asks
        }
        for ($i = 0; $i < 3; ++$i) {
            $this->task($counter, 'get');
        }

        $this->loop->runUntilIdle();

        self::assertSame(['ask get', 'ask get', 'ask get', 'got 150', 'got 150', 'got 150'], $this->log);
    }

    public function testAnActorThatStopsAnswersWhatCameBeforeAndFailsWhatCameAfter(): void
    {
        $echo = $this->system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply($message);
        }));
        $this->loop->runUntilIdle();
        // The first task stops the actor right after asking it, before it waits.
        $this->task($echo, 'before', 5.0, static function () use ($echo): void {
            $echo->tell(new PoisonPill());
        });
        $this->task($echo, 'after');

        $this->loop->runUntilIdle();

        self::assertSame(['ask before', 'got before', 'ask after', RecipientTerminatedException::class], $this->log);
        self::assertSame(0.0, $this->clock->now(), 'no wait for the timeout');
    }

    public function testAnActorThatFailsOnAnAskLeavesItToTimeOutAndAnswersTheNextAfterItsRestart(): void
    {
        $flaky = $this->system->spawn(Behavior::receive(static function (string $message, ActorContext $ctx): void {
            if ($message === 'boom') {
                throw new \RuntimeException('failed on purpose');
            }
            $ctx->reply($message);
        }));
        $this->loop->runUntilIdle();
        $this->task($flaky, 'boom', 2.0);
        $this->task($flaky, 'fine', 2.0);

        $this->loop->run();

        self::assertSame(['ask boom', 'ask fine', 'got fine', AskTimeoutException::class], $this->log);
        self::assertSame(2.0, $this->clock->now());
    }

    public function testAReplyAfterTheTimeoutIsADeadLetterAndTheTaskGotTheTimeout(): void
    {
        /** @var list<DeadLetter> $deadLetters */
        $deadLetters = [];
        $this->system->eventStream->subscribe($this->system->spawn(Behavior::receive(static function (DeadLetter $letter) use (&$deadLetters): void {
            $deadLetters[] = $letter;
        })), DeadLetter::class);
        $slow = $this->system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'q') {
                $ctx->timers()->startSingleTimer('late', $ctx->sender(), 3.0);
            } elseif ($message instanceof ActorRef) {
                $message->tell('too late');
            }
        }));
        $this->loop->runUntilIdle();
        $this->task($slow, 'q', 1.0);

        $this->loop->run();

        self::assertSame(['ask q', AskTimeoutException::class], $this->log);
        self::assertCount(1, $deadLetters);
        self::assertSame('too late', $deadLetters[0]->message);
        self::assertSame(DeadLetterReason::LateAskReply, $deadLetters[0]->reason);
    }

    public function testAnAskedActorThatWaitsItselfAnswersEveryTaskInOrder(): void
    {
        $oracle = $this->system->spawn(Behavior::receive(static function (int $n, ActorContext $ctx): void {
            $ctx->reply($n * 10);
        }));
        $middle = $this->system->spawn(Behavior::receive(function (int $n, ActorContext $ctx) use ($oracle): void {
            $this->log[] = "middle asks {$n}";
            $answer = $oracle->ask($n)->await(); // the middle actor's handler waits in turn
            \assert(\is_int($answer));
            $ctx->reply($answer + 1);
        }));
        $this->loop->runUntilIdle();
        for ($i = 1; $i <= 3; ++$i) {
            $this->task($middle, $i);
        }

        $this->loop->runUntilIdle();

        self::assertSame([
            'ask 1', 'middle asks 1', 'got 11',
            'ask 2', 'middle asks 2', 'got 21',
            'ask 3', 'middle asks 3', 'got 31',
        ], $this->log);
    }

    /**
     * A task on the run queue (an HTTP handler) that asks $ref and logs the answer or the failure.
     *
     * @param (\Closure(): void)|null $beforeWaiting runs between the ask and the wait
     */
    private function task(ActorRef $ref, int|string $question, float $timeout = 5.0, ?\Closure $beforeWaiting = null): void
    {
        $this->system->scheduler->schedule(new ClosureRunnable(function () use ($ref, $question, $timeout, $beforeWaiting): void {
            $this->log[] = 'ask ' . $question;
            try {
                $future = $ref->ask($question, $timeout);
                if ($beforeWaiting !== null) {
                    $beforeWaiting();
                }
                $answer = $future->await();
                $this->log[] = 'got ' . (\is_int($answer) || \is_string($answer) ? $answer : get_debug_type($answer));
            } catch (AskTimeoutException | RecipientTerminatedException $e) {
                $this->log[] = $e::class;
            }
        }));
    }
}
