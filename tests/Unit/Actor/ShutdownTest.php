<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\ActorStoppingException;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\Signal;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Exception\DeadlockException;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class ShutdownTest extends TestCase
{
    public function testShutdownStopsLeafFirstThenTheSystemGuardianAndRunReturns(): void
    {
        $kit = new TestKit();
        /** @var \ArrayObject<int, string> $stopped */
        $stopped = new \ArrayObject();
        $record = static fn(string $who): \Closure => static function (Signal $signal) use ($stopped, $who): void {
            if ($signal instanceof PostStop) {
                $stopped[] = $who;
            }
        };
        $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($record): Behavior {
            $ctx->spawn(Behavior::setup(static function (ActorContext $ctx) use ($record): Behavior {
                $ctx->spawn(Behavior::ignore()->onSignal($record('a/b/c')), 'c');

                return Behavior::ignore()->onSignal($record('a/b'));
            }), 'b');

            return Behavior::ignore()->onSignal($record('a'));
        }), 'a');
        $kit->system->spawnSystemActor(Behavior::ignore()->onSignal($record('system actor')), 'internal');
        $kit->runUntilIdle();

        $kit->system->shutdown();
        $kit->system->run();

        self::assertTrue($kit->system->isTerminated());
        self::assertSame(['a/b/c', 'a/b', 'a', 'system actor'], $stopped->getArrayCopy());
        self::assertNull($kit->system->lookup('/user'));
    }

    public function testActorsThatDoNotStopInTimeAreStoppedHardAtTheDeadline(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $stuck = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe): void {
            $probe->ref->tell('waiting');
            $never = new \Nexus\Runtime\Deferred($ctx->loop());
            $never->future()->await(3600.0);
        })->onSignal(static function (Signal $signal) use ($probe): void {
            if ($signal instanceof PostStop) {
                $probe->ref->tell('stuck stopped');
            }
        }), 'stuck');
        $stuck->tell('wait forever');
        $probe->expectMessage('waiting');
        $start = $kit->now();

        $kit->system->shutdown(5.0)->await();

        self::assertTrue($kit->system->isTerminated());
        self::assertEqualsWithDelta(5.0, $kit->now() - $start, 0.001);
        self::assertStringContainsString('had not stopped 5 s after shutdown began', implode("\n", $kit->logger->messages('warning')));
    }

    public function testNoNewActorsWhileShuttingDown(): void
    {
        $kit = new TestKit();
        $kit->system->shutdown();

        $this->expectException(ActorStoppingException::class);
        $kit->spawn(Behavior::ignore());
    }

    public function testShutdownIsIdempotent(): void
    {
        $kit = new TestKit();
        $first = $kit->system->shutdown();
        $second = $kit->system->shutdown();
        $kit->system->run();

        self::assertSame($first, $second);
        self::assertTrue($first->isFulfilled());
        self::assertSame($first, $kit->system->whenTerminated());
    }

    public function testRunWithoutAnythingThatCouldStopTheSystemIsADeadlockNotAHang(): void
    {
        $system = new ActorSystem('idle', new MemoryLogger());
        $system->spawn(Behavior::ignore());

        $this->expectException(DeadlockException::class);
        $this->expectExceptionMessage('call shutdown()');
        $system->run();
    }

    public function testAnActorCanShutTheSystemDownFromItsHandler(): void
    {
        $system = new ActorSystem('self-stopping', new MemoryLogger());
        $ref = $system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->system()->shutdown();
        }));
        $ref->tell('enough');

        $system->run();

        self::assertTrue($system->isTerminated());
    }
}
