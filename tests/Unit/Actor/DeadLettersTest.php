<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class DeadLettersTest extends TestCase
{
    public function testEveryUndeliverableMessageIsCountedAndPublishedWithItsReason(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $gone = $kit->spawn(Behavior::ignore(), 'gone');
        $kit->system->stop($gone);
        $kit->runUntilIdle();

        $gone->tell('hello?', $probe->ref);
        $replier = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply('to whom?');
        }));
        $replier->tell('no sender'); // told from outside any actor: no sender to reply to

        $first = $probe->expectMessageClass(DeadLetter::class);
        self::assertSame('hello?', $first->message);
        self::assertSame('/user/gone', $first->recipient);
        self::assertSame($probe->ref, $first->sender);
        self::assertSame(DeadLetterReason::RecipientTerminated, $first->reason);
        $second = $probe->expectMessageClass(DeadLetter::class);
        self::assertSame(DeadLetterReason::NoSender, $second->reason);
        self::assertSame(2, $kit->system->deadLetters->count());
        self::assertSame(1, $kit->system->deadLetters->countFor(DeadLetterReason::NoSender));
    }

    public function testAnActorSubscribedToDeadLettersStopsWithMessagesQueued(): void
    {
        $kit = new TestKit();
        $seen = 0;
        $listener = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use (&$seen): void {
            ++$seen;
            $ctx->stop(); // the rest of its queue becomes dead letters while it is subscribed
        }), 'listener');
        $kit->system->eventStream->subscribe($listener, DeadLetter::class);
        for ($i = 0; $i < 3; ++$i) {
            $listener->tell("queued {$i}");
        }
        $kit->runUntilIdle();

        self::assertSame(1, $seen);
        self::assertNull($kit->system->lookup('/user/listener'));
        self::assertSame(2, $kit->system->deadLetters->countFor(DeadLetterReason::RecipientTerminated), 'the two queued messages, each once: no dead letter of a dead letter');
    }

    public function testLoggingIsRateLimitedButCountingIsNot(): void
    {
        $kit = new TestKit();
        $gone = $kit->spawn(Behavior::ignore());
        $kit->system->stop($gone);
        $kit->runUntilIdle();

        for ($i = 0; $i < 100; ++$i) {
            $gone->tell($i);
        }
        self::assertCount(10, $kit->logger->messages('info'), 'a burst of ten is logged');
        self::assertSame(100, $kit->system->deadLetters->count());

        $kit->advance(11.0);
        $gone->tell('after the window');
        $logged = $kit->logger->messages('info');
        self::assertCount(12, $logged);
        self::assertSame('90 more dead letters were not logged in the last 10 s.', $logged[10]);
        self::assertStringContainsString('Dead letter to /user/', $logged[11]);
    }
}
