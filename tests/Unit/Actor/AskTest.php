<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class AskTest extends TestCase
{
    public function testAskReturnsTheReplyFromTopLevelCode(): void
    {
        $kit = new TestKit();
        $doubler = $kit->spawn(Behavior::receive(static function (int $n, ActorContext $ctx): void {
            $ctx->reply($n * 2);
        }));

        self::assertSame(42, $doubler->ask(21)->await());
    }

    public function testAHandlerCanAwaitAnAskWhileTheRestOfTheSystemRunsOn(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        // The asker awaits a reply that only comes after 1 s of virtual time; meanwhile a third
        // actor keeps answering.
        $delayed = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'question') {
                $replyTo = $ctx->sender();
                \assert($replyTo !== null);
                $ctx->timers()->startSingleTimer('r', ['deliver', $replyTo], 1.0);
            } elseif (\is_array($message) && $message[1] instanceof \Nexus\Actor\ActorRef) {
                $message[1]->tell('late but fine');
            }
        }));
        $asker = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($delayed, $probe): void {
            $probe->ref->tell('asking');
            $answer = $delayed->ask('question', 5.0)->await();
            \assert(\is_string($answer));
            $probe->ref->tell("answer: {$answer}");
        }));
        $other = $kit->spawn(Behavior::receive(static function (string $message) use ($probe): void {
            $probe->ref->tell("other: {$message}");
        }));

        $asker->tell('start');
        $other->tell('still running');

        $probe->expectMessage('asking');
        $probe->expectMessage('other: still running');
        $probe->expectMessage('answer: late but fine');
    }

    public function testAnActorWaitingOnAnAskTakesNoNewMessageUntilItResumes(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $oracle = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'q') {
                $replyTo = $ctx->sender();
                \assert($replyTo !== null);
                $ctx->timers()->startSingleTimer('r', $replyTo, 2.0);
            } elseif ($message instanceof \Nexus\Actor\ActorRef) {
                $message->tell('a');
            }
        }));
        $asker = $kit->spawn(Behavior::receive(static function (int $message) use ($oracle, $probe): void {
            $probe->ref->tell("begin {$message}");
            $oracle->ask('q')->await();
            $probe->ref->tell("end {$message}");
        }));
        $asker->tell(1);
        $asker->tell(2);

        self::assertSame(['begin 1', 'end 1', 'begin 2', 'end 2'], $probe->receiveMessages(4, 10.0));
    }

    public function testAskTimesOutWithATypedExceptionAndTheLateReplyIsADeadLetter(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $sluggish = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'q') {
                $replyTo = $ctx->sender();
                \assert($replyTo !== null);
                $ctx->timers()->startSingleTimer('late', $replyTo, 3.0);
            } elseif ($message instanceof \Nexus\Actor\ActorRef) {
                $message->tell('too late');
            }
        }));

        $future = $sluggish->ask('q', 1.0);
        try {
            $future->await();
            self::fail('The ask should have timed out.');
        } catch (AskTimeoutException $e) {
            self::assertInstanceOf(TimeoutException::class, $e);
            self::assertStringContainsString('No reply from /user/', $e->getMessage());
            self::assertStringContainsString('within 1.000 s', $e->getMessage());
        }
        $deadLetter = $probe->expectMessageClass(DeadLetter::class, 5.0);
        self::assertSame('too late', $deadLetter->message);
        self::assertSame(DeadLetterReason::LateAskReply, $deadLetter->reason);
    }

    public function testAskingAStoppedActorFailsAtOnce(): void
    {
        $kit = new TestKit();
        $ref = $kit->spawn(Behavior::ignore());
        $kit->system->stop($ref);
        $kit->runUntilIdle();
        $start = $kit->now();

        $this->expectException(RecipientTerminatedException::class);
        try {
            $ref->ask('anyone?', 30.0)->await();
        } finally {
            self::assertSame($start, $kit->now(), 'no waiting for the timeout');
        }
    }

    public function testAnAskQueuedWhenTheActorStopsFailsAtOnce(): void
    {
        $kit = new TestKit();
        $ref = $kit->spawn(Behavior::receive(static fn(): Behavior => Behavior::stopped()));
        $ref->tell('stop now');
        $future = $ref->ask('never answered', 30.0);

        $this->expectException(RecipientTerminatedException::class);
        $future->await();
    }

    public function testAskWorksOnARealClock(): void
    {
        $system = new ActorSystem('real', new MemoryLogger());
        $ref = $system->spawn(Behavior::receive(static function (string $name, ActorContext $ctx): void {
            $ctx->reply("Hello, {$name}!");
        }));

        self::assertSame('Hello, Ada!', $ref->ask('Ada', 1.0)->await());
        $system->shutdown()->await();
        self::assertTrue($system->isTerminated());
    }
}
