<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\ReceiveTimeout;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\TimerScheduler;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\TestCase;

final class TimersTest extends TestCase
{
    public function testSingleTimerFiresOnceAfterItsDelay(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $this->timed($kit, $probe, static fn(ActorContext $ctx) => $ctx->timers()->startSingleTimer('once', 'ding', 2.0));

        $kit->advance(1.9);
        self::assertSame(0, $probe->pending());
        $kit->advance(0.1);
        self::assertSame([['ding', 1002.0]], $this->drain($probe));
        $kit->advance(10.0);
        self::assertSame(0, $probe->pending());
    }

    public function testFixedRateTimerKeepsItsRhythm(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $this->timed($kit, $probe, static fn(ActorContext $ctx) => $ctx->timers()->startTimerAtFixedRate('tick', 'tick', 1.0, 0.5));

        $kit->advance(3.0);

        self::assertSame([['tick', 1000.5], ['tick', 1001.5], ['tick', 1002.5]], $this->drain($probe));
    }

    public function testFixedDelayTimerWaitsAfterEachDelivery(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $this->timed($kit, $probe, static fn(ActorContext $ctx) => $ctx->timers()->startTimerWithFixedDelay('poll', 'poll', 2.0));

        $kit->advance(6.5);

        self::assertSame([['poll', 1002.0], ['poll', 1004.0], ['poll', 1006.0]], $this->drain($probe));
    }

    public function testStartingATimerUnderTheSameKeyReplacesIt(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $this->timed($kit, $probe, static function (ActorContext $ctx): void {
            $ctx->timers()->startSingleTimer('k', 'first', 1.0);
            $ctx->timers()->startSingleTimer('k', 'second', 3.0);
        });

        $kit->advance(5.0);

        self::assertSame([['second', 1003.0]], $this->drain($probe));
    }

    public function testCancelledTimersDoNotFireEvenWhenTheirMessageIsAlreadyQueued(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
            if ($message === 'start') {
                $ctx->timers()->startSingleTimer('k', 'should not arrive', 1.0);
            } elseif ($message === 'cancel') {
                $ctx->timers()->cancel('k');
                $probe->ref->tell($ctx->timers()->isTimerActive('k') ? 'active' : 'inactive');
            } else {
                $probe->ref->tell($message);
            }
        }));
        $ref->tell('start');
        $kit->runUntilIdle();
        // The timer's message and 'cancel' are queued in the same turn; the cancel is handled first.
        $kit->clock->advance(1.0);
        $ref->tell('cancel');
        $kit->runUntilIdle();

        $probe->expectMessage('inactive');
        $kit->advance(5.0);
        $probe->expectNoMessage();
    }

    public function testAllTimersAreCancelledWhenTheActorStops(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $this->timed($kit, $probe, static function (ActorContext $ctx): void {
            $ctx->timers()->startTimerAtFixedRate('a', 'a', 1.0);
            $ctx->timers()->startSingleTimer('b', 'b', 2.0);
        });
        $kit->system->stop($ref);
        $kit->runUntilIdle();

        $kit->advance(10.0);

        self::assertSame(0, $probe->pending());
        self::assertNull($kit->loop->nextTimerDue(), 'no timer left on the loop');
        self::assertSame(0, $kit->system->deadLetters->count());
    }

    public function testATimerStartedInPostStopIsNotStartedAndSaysWhy(): void
    {
        $kit = new TestKit();
        $kept = null;
        $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use (&$kept): Behavior {
            $kept = $ctx->timers();

            return Behavior::receive(static function (): void {})
                ->onSignal(static function (Signal $signal, ActorContext $ctx): void {
                    if ($signal instanceof PostStop) {
                        $ctx->timers()->startTimerAtFixedRate('forever', 'tick', 1.0);
                        $ctx->setReceiveTimeout(1.0);
                    }
                });
        }));
        $kit->runUntilIdle();
        $kit->system->stop($ref);
        $kit->runUntilIdle();
        self::assertInstanceOf(TimerScheduler::class, $kept);
        $kept->startSingleTimer('later', 'too late', 1.0);

        self::assertNull($kit->loop->nextTimerDue(), 'no timer keeps the loop alive');
        self::assertFalse($kept->isTimerActive('forever'));
        $warnings = $kit->logger->messages('warning');
        self::assertCount(3, $warnings);
        self::assertStringContainsString('was not started: the actor is stopping or has stopped', $warnings[0]);
        self::assertStringContainsString('receive timeout was not set', $warnings[1]);
    }

    public function testReceiveTimeoutFiresAfterIdlePeriodsOnly(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe, $kit): Behavior {
            $ctx->setReceiveTimeout(2.0);

            return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe, $kit): void {
                if ($message instanceof ReceiveTimeout) {
                    $probe->ref->tell(['idle', $kit->now()]);
                } elseif ($message === 'enough') {
                    $ctx->cancelReceiveTimeout();
                }
            });
        }));
        $kit->runUntilIdle();
        $kit->advance(1.5);
        $ref->tell('activity'); // at 1001.5: pushes the timeout to 1003.5
        $kit->advance(2.5);     // to 1004.0
        self::assertSame([['idle', 1003.5]], $this->drain($probe));
        $kit->advance(2.0);     // fires again at 1005.5
        self::assertSame([['idle', 1005.5]], $this->drain($probe));
        $ref->tell('enough');
        $kit->advance(10.0);
        self::assertSame(0, $probe->pending());
    }

    public function testReceiveTimeoutCanCarryACustomMessage(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $ctx->setReceiveTimeout(1.0, 'wake up');

            return Behavior::receive(static function (mixed $message) use ($probe): void {
                $probe->ref->tell($message);
            });
        }));

        $probe->expectMessage('wake up', 1.5);
    }

    /**
     * @param \Closure(ActorContext): void $start
     */
    private function timed(TestKit $kit, TestProbe $probe, \Closure $start): ActorRef
    {
        $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($start, $probe, $kit): Behavior {
            $start($ctx);

            return Behavior::receive(static function (mixed $message) use ($probe, $kit): void {
                $probe->ref->tell([$message, $kit->now()]);
            });
        }));
        $kit->runUntilIdle();

        return $ref;
    }

    /**
     * @return list<mixed>
     */
    private function drain(TestProbe $probe): array
    {
        $messages = [];
        while ($probe->pending() > 0) {
            $messages[] = $probe->receiveMessage(0.0);
        }

        return $messages;
    }
}
