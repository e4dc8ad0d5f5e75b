<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\StashOverflowException;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class StashTest extends TestCase
{
    public function testStashedMessagesComeBackInOrderAheadOfNewOnes(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ready = Behavior::receive(static function (mixed $message) use ($probe): void {
            $probe->ref->tell($message);
        });
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($ready): ?Behavior {
            if ($message === 'open') {
                $ctx->unstashAll();

                return $ready;
            }
            $ctx->stash();

            return null;
        }));
        $ref->tell('a');
        $ref->tell('b');
        $ref->tell('open');
        $ref->tell('c');

        self::assertSame(['a', 'b', 'c'], $probe->receiveMessages(3));
    }

    public function testAHeldPoisonPillWaitsInTheStashBehindTheMessagesBeforeIt(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $ctx->holdPoisonPill(true); // busy until 'ready', as a persistent actor during a write

            $ready = false;

            return Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($probe, &$ready): void {
                if ($message === 'ready') {
                    $ready = true;
                    $ctx->holdPoisonPill(false);
                    $ctx->unstashAll();
                } elseif (!$ready) {
                    $ctx->stash();
                } else {
                    $probe->ref->tell($message);
                }
            });
        }));
        $probe->watch($ref);
        $ref->tell('work');
        $ref->tell(new PoisonPill());
        $kit->runUntilIdle();

        self::assertNotNull($kit->system->lookup($ref->path()), 'a held PoisonPill does not stop the actor');

        $ref->tell('ready');
        $probe->expectMessage('work');
        $probe->expectTerminated($ref);
    }

    public function testTheStashHasACapacity(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Props::fromBehavior(Behavior::receive(static function (int $message, ActorContext $ctx) use ($probe): void {
            try {
                $ctx->stash();
                $probe->ref->tell("stashed {$message} ({$ctx->stashSize()})");
            } catch (StashOverflowException $e) {
                $probe->ref->tell($e->getMessage());
            }
        }))->withStashCapacity(2));
        $ref->tell(1);
        $ref->tell(2);
        $ref->tell(3);

        $probe->expectMessage('stashed 1 (1)');
        $probe->expectMessage('stashed 2 (2)');
        $overflow = $probe->receiveMessage();
        self::assertIsString($overflow);
        self::assertStringContainsString('The stash of /user/', $overflow);
    }

    public function testStashedMessagesOfAStoppedActorBecomeDeadLetters(): void
    {
        $kit = new TestKit();
        $ref = $kit->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->stash();
        }));
        $ref->tell('x');
        $ref->tell('y');
        $kit->runUntilIdle();
        $kit->system->stop($ref);
        $kit->runUntilIdle();

        self::assertSame(2, $kit->system->deadLetters->count());
    }
}
