<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\Terminated;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\TestCase;

final class DeathWatchTest extends TestCase
{
    public function testTerminatedArrivesExactlyOnce(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore());
        $watcher = $this->watcher($kit, $probe);
        $watcher->tell(['watch', $target]);
        $watcher->tell(['watch', $target]); // watching twice still means one notice
        $kit->runUntilIdle();
        $kit->system->stop($target);

        self::assertSame(['terminated', $target], $probe->receiveMessage());
        $probe->expectNoMessage(1.0);
    }

    public function testWatchingAnActorThatIsAlreadyDeadStillDeliversTerminated(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore());
        $kit->system->stop($target);
        $kit->runUntilIdle();

        $this->watcher($kit, $probe)->tell(['watch', $target]);

        self::assertSame(['terminated', $target], $probe->receiveMessage());
        $probe->expectNoMessage();
    }

    public function testAWatchArrivingInTheSameTurnAsTheStopStillGetsTerminated(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore(), 'target');
        $probe->watch($target);
        $kit->system->stop($target);

        $probe->expectTerminated($target);
    }

    public function testUnwatchMeansNoTerminated(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore());
        $watcher = $this->watcher($kit, $probe);
        $watcher->tell(['watch', $target]);
        $watcher->tell(['unwatch', $target]);
        $kit->runUntilIdle();
        $kit->system->stop($target);

        $probe->expectNoMessage();
    }

    public function testUnwatchWhileTheHandlerWaitsSuppressesTheNotice(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore());
        $watcher = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe, $target): void {
            if ($message === 'watch') {
                $ctx->watch($target);
            } elseif ($message === 'stop target and unwatch') {
                $ctx->system()->stop($target);
                // Let the target die and the notice be queued while this handler still runs.
                $ctx->loop()->async(static fn(): null => null)->await();
                $ctx->unwatch($target);
            } else {
                $probe->ref->tell($message);
            }
        }));
        $watcher->tell('watch');
        $kit->runUntilIdle();
        $watcher->tell('stop target and unwatch');
        $watcher->tell('done');

        $probe->expectMessage('done');
        $probe->expectNoMessage();
    }

    public function testUnwatchQueuedBeforeTheTerminatedMessageSuppressesIt(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore());
        $watcher = $this->watcher($kit, $probe);
        $watcher->tell(['watch', $target]);
        $kit->runUntilIdle();
        // In one turn: the target dies (its notice lands behind 'unwatch' in the watcher's mailbox).
        $kit->system->stop($target);
        $watcher->tell(['unwatch', $target]);
        $kit->runUntilIdle();

        $probe->expectNoMessage();
    }

    public function testACustomMessageCanReplaceTerminated(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore(), 'job');
        $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($target, $probe): Behavior {
            $ctx->watch($target, 'job finished');

            return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
                $probe->ref->tell([$message, $ctx->sender()]);
            });
        }));
        $kit->runUntilIdle();
        $kit->system->stop($target);

        self::assertSame(['job finished', $target], $probe->receiveMessage());
    }

    public function testTerminatedComesAfterTheLastMessagesOfTheDeadActor(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $chatty = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): Behavior {
            for ($i = 1; $i <= 3; ++$i) {
                $probe->ref->tell("last words {$i}");
            }

            return Behavior::stopped();
        }));
        $probe->watch($chatty);
        $kit->runUntilIdle();
        $chatty->tell('speak');

        $probe->expectMessage('last words 1');
        $probe->expectMessage('last words 2');
        $probe->expectMessage('last words 3');
        $probe->expectTerminated($chatty);
    }

    public function testWatchersOfAStoppedWatcherAreCleanedUp(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $target = $kit->spawn(Behavior::ignore());
        $watcher = $this->watcher($kit, $probe);
        $watcher->tell(['watch', $target]);
        $kit->runUntilIdle();
        $kit->system->stop($watcher);
        $kit->runUntilIdle();
        $kit->system->stop($target);
        $kit->runUntilIdle();

        $probe->expectNoMessage();
        self::assertSame(0, $kit->system->deadLetters->count(), 'no notice was sent to the dead watcher');
    }

    private function watcher(TestKit $kit, TestProbe $probe): ActorRef
    {
        return $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
            if (\is_array($message) && $message[0] === 'watch' && $message[1] instanceof ActorRef) {
                $ctx->watch($message[1]);
            } elseif (\is_array($message) && $message[0] === 'unwatch' && $message[1] instanceof ActorRef) {
                $ctx->unwatch($message[1]);
            } elseif ($message instanceof Terminated) {
                $probe->ref->tell(['terminated', $message->ref]);
            }
        }));
    }
}
