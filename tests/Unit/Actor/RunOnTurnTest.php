<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorRestarted;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Props;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

/**
 * ActorContext::runOnTurn(): work finished outside an actor comes back to it as if it were a
 * message.
 */
final class RunOnTurnTest extends TestCase
{
    public function testTheCallbackRunsOnTheActorsTurnAfterWhatWasQueuedWithItsMessageAndSender(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $saved = null;
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$saved, $probe): void {
            if ($message === 'start') {
                $saved = $ctx;

                return;
            }
            $probe->ref->tell('message ' . (\is_string($message) ? $message : '?'));
        }));
        $ref->tell('start');
        $kit->runUntilIdle();
        \assert($saved instanceof ActorContext);
        $ref->tell('queued before');

        self::assertTrue($saved->runOnTurn(static function (ActorContext $ctx) use ($probe): void {
            $message = $ctx->message();
            $probe->ref->tell('callback with ' . (\is_string($message) ? $message : '?'));
            $ctx->reply('answer to the original sender');
        }, 'the original message', $probe->ref));

        $probe->expectMessage('message queued before');
        $probe->expectMessage('callback with the original message');
        $probe->expectMessage('answer to the original sender');
    }

    public function testABoundedMailboxNeverRefusesIt(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $saved = null;
        $ref = $kit->spawn(Props::fromBehavior(Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$saved, $probe): void {
            $saved ??= $ctx;
            $probe->ref->tell($message);
        }))->withMailbox(1, OverflowPolicy::DropNewest));
        $ref->tell('first');
        $kit->runUntilIdle();
        $probe->expectMessage('first');
        \assert($saved instanceof ActorContext);

        $ref->tell('fills the mailbox');
        $saved->runOnTurn(static function () use ($probe): void {
            $probe->ref->tell('callback despite the full mailbox');
        });

        $probe->expectMessage('fills the mailbox');
        $probe->expectMessage('callback despite the full mailbox');
    }

    public function testAnExceptionInTheCallbackIsAFailureOfTheActor(): void
    {
        $kit = new TestKit();
        $restarted = $kit->probe();
        $kit->system->eventStream->subscribe($restarted->ref, ActorRestarted::class);
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->runOnTurn(static function (): void {
                throw new \DomainException('failed on the turn');
            });
        }));

        $ref->tell('go');

        $event = $restarted->expectMessageClass(ActorRestarted::class);
        self::assertSame('failed on the turn', $event->reason->getMessage());
    }

    public function testNothingIsQueuedForAStoppedActorAndAQueuedCallbackIsDroppedQuietly(): void
    {
        $kit = new TestKit();
        $deadLetters = $kit->probe();
        $kit->system->eventStream->subscribe($deadLetters->ref, DeadLetter::class);
        $saved = null;
        $ran = false;
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$saved, &$ran): Behavior {
            $saved = $ctx;
            $ctx->runOnTurn(static function () use (&$ran): void {
                $ran = true;
            });

            return Behavior::stopped();
        }));
        $watcher = $kit->probe();
        $watcher->watch($ref);

        $ref->tell('stop now');
        $watcher->expectTerminated($ref);

        self::assertFalse($ran, 'the callback queued behind the stop did not run');
        \assert($saved instanceof ActorContext);
        self::assertFalse($saved->runOnTurn(static function (): void {}));
        $deadLetters->expectNoMessage();
    }
}
