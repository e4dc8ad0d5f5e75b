<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\ActorKilledException;
use Nexus\Actor\Message\Kill;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Signal\PostRestart;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\PreRestart;
use Nexus\Actor\Signal\PreStart;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Directive;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\TestCase;

final class LifecycleTest extends TestCase
{
    public function testSignalsArriveInLifecycleOrderAcrossARestart(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn($this->signalReporter($probe, 'boom'));
        $ref->tell('boom');
        $ref->tell('after');
        $kit->runUntilIdle();
        $kit->system->stop($ref);

        self::assertSame(
            ['PreStart', 'PreRestart(boom)', 'PostRestart(boom)', 'message after', 'PostStop'],
            $probe->receiveMessages(5),
        );
    }

    public function testStopFromInsideDropsTheRestOfTheMailboxToDeadLetters(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            if ($message === 'stop') {
                $ctx->stop();
            }
        }));
        $ref->tell('stop');
        $ref->tell('lost?');

        $letter = $probe->expectMessageClass(DeadLetter::class);
        self::assertSame('lost?', $letter->message);
        self::assertSame(DeadLetterReason::RecipientTerminated, $letter->reason);
        self::assertSame($ref->path(), $letter->recipient);
    }

    public function testStopFromOutsideOvertakesQueuedMessages(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message) use ($probe): void {
            $probe->ref->tell($message);
        }));
        $kit->runUntilIdle();
        $ref->tell('queued');
        $kit->system->stop($ref);
        $kit->runUntilIdle();

        $probe->expectNoMessage();
        self::assertSame(1, $kit->system->deadLetters->count());
    }

    public function testAPoisonPillStopsAfterTheMessagesQueuedBeforeIt(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message) use ($probe): void {
            $probe->ref->tell($message);
        }));
        $probe->watch($ref);
        $ref->tell(1);
        $ref->tell(2);
        $ref->tell(new PoisonPill());
        $ref->tell(3);

        $probe->expectMessage(1);
        $probe->expectMessage(2);
        $probe->expectTerminated($ref);
        $probe->expectNoMessage();
        self::assertSame(1, $kit->system->deadLetters->countFor(DeadLetterReason::RecipientTerminated));
    }

    public function testKillFailsTheActorSoThatItsSupervisorDecides(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::receive(static fn(): null => null));
        $probe->watch($ref);
        $ref->tell(new Kill());

        $probe->expectTerminated($ref);
        self::assertStringContainsString(ActorKilledException::class, implode("\n", $kit->logger->messages('error')));
    }

    public function testKillCanBeResumedByADeciderThatSaysSo(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $parent = $kit->spawn(\Nexus\Actor\Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $child = $ctx->spawn(Behavior::receive(static function (mixed $message) use ($probe): void {
                $probe->ref->tell($message);
            }), 'tough');
            $probe->ref->tell($child);

            return Behavior::ignore();
        }))->withSupervisor(SupervisorStrategy::oneForOne(static fn(\Throwable $e): Directive => $e instanceof ActorKilledException ? Directive::Resume : Directive::Stop)));
        unset($parent);
        $child = $probe->receiveMessage();
        \assert($child instanceof \Nexus\Actor\ActorRef);
        $child->tell(new Kill());
        $child->tell('still alive');

        $probe->expectMessage('still alive');
    }

    public function testAnActorThatWasNeverStartedStopsWithoutSignals(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn($this->signalReporter($probe, 'never'));
        $kit->system->stop($ref);
        $kit->runUntilIdle();

        $probe->expectNoMessage();
        self::assertNull($kit->system->lookup($ref->path()));
    }

    private function signalReporter(TestProbe $probe, string $failOn): \Nexus\Actor\Props
    {
        return \Nexus\Actor\Props::fromBehavior(
            Behavior::receive(static function (string $message) use ($probe, $failOn): void {
                if ($message === $failOn) {
                    throw new \RuntimeException($failOn);
                }
                $probe->ref->tell("message {$message}");
            })->onSignal(static function (Signal $signal) use ($probe): void {
                $probe->ref->tell(match (true) {
                    $signal instanceof PreStart => 'PreStart',
                    $signal instanceof PostStop => 'PostStop',
                    $signal instanceof PreRestart => "PreRestart({$signal->reason->getMessage()})",
                    $signal instanceof PostRestart => "PostRestart({$signal->reason->getMessage()})",
                    default => 'other',
                });
            }),
        );
    }
}
