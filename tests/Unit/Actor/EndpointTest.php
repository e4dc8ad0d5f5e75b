<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

/**
 * The face the actor layer shows to transports: what a link needs from a local actor.
 */
final class EndpointTest extends TestCase
{
    public function testAnEndpointIsFoundOnlyForALiveLocalActor(): void
    {
        $kit = new TestKit();
        $ref = $kit->spawn(Behavior::ignore(), 'here');
        $kit->system->alias('/user/elsewhere', $ref);

        $endpoint = $kit->system->endpoint('/user/here');
        self::assertInstanceOf(Endpoint::class, $endpoint);
        self::assertSame('/user/here', $endpoint->path());
        self::assertNull($kit->system->endpoint('/user/elsewhere'), 'an alias is no local actor');
        self::assertNotNull($kit->system->lookup('/user/elsewhere'));

        $kit->system->stop($ref);
        $kit->runUntilIdle();
        self::assertTrue($endpoint->isTerminated());
        self::assertNull($kit->system->endpoint('/user/here'));
    }

    public function testDeliveryKeepsTheSenderAndReportsTheMailbox(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $endpoint = $kit->system->endpoint($kit->spawn(Behavior::receive(static function (string $message, ActorContext $ctx): void {
            $ctx->reply("got {$message}");
        }), 'echo')->path());
        self::assertNotNull($endpoint);
        self::assertNull($endpoint->deliveryLimit(), 'unbounded: the transport applies its own high-water mark');

        $endpoint->deliver('a', $probe->ref);
        $endpoint->deliver('b', $probe->ref);
        self::assertSame(2, $endpoint->queued());
        $probe->expectMessage('got a');
        $probe->expectMessage('got b');
        self::assertSame(0, $endpoint->queued());

        $bounded = $kit->system->endpoint($kit->spawn(Props::fromBehavior(Behavior::ignore())->withMailbox(8, OverflowPolicy::Backpressure), 'bounded')->path());
        $dropping = $kit->system->endpoint($kit->spawn(Props::fromBehavior(Behavior::ignore())->withMailbox(8, OverflowPolicy::DropNewest), 'dropping')->path());
        self::assertSame(8, $bounded?->deliveryLimit());
        self::assertSame(\PHP_INT_MAX, $dropping?->deliveryLimit(), 'it settles overflow itself');
    }

    public function testChildrenAreSpawnedAndFoundThroughTheEndpoint(): void
    {
        $kit = new TestKit();
        $region = $kit->system->endpoint($kit->spawn(Behavior::ignore(), 'region')->path());
        self::assertNotNull($region);
        $child = $region->spawnChild(Behavior::ignore(), 'c1');

        self::assertSame('/user/region/c1', $child->path());
        self::assertSame($child, $region->child('c1'));
        self::assertSame([$child], $region->children());
        self::assertFalse($region->isStopping());
    }

    public function testStopAfterCurrentStopsAfterTheMessageInHandAndDeadLettersTheRest(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $handled = [];
        /** @var Endpoint|null $endpoint set once the actor is spawned */
        $endpoint = null;
        $ref = $kit->spawn(Behavior::receive(static function (string $message) use (&$handled, &$endpoint): void {
            $handled[] = $message;
            if ($message === 'first' && $endpoint instanceof Endpoint) {
                $endpoint->stopAfterCurrent(new PoisonPill()); // arrives while 'first' is in hand
            }
        }), 'worker');
        $endpoint = $kit->system->endpoint($ref->path());
        self::assertNotNull($endpoint);
        $dead = [];
        $kit->system->eventStream->subscribe($probe->ref, DeadLetter::class);
        $probe->watch($ref);
        foreach (['first', 'second', 'third'] as $message) {
            $ref->tell($message);
        }
        $terminated = false;
        foreach ($probe->receiveMessages(3) as $message) {
            if ($message instanceof DeadLetter) {
                self::assertSame(DeadLetterReason::RecipientTerminated, $message->reason);
                $dead[] = $message->message;
            } else {
                $terminated = true;
            }
        }

        self::assertTrue($terminated);
        self::assertSame(['first'], $handled);
        self::assertSame(['second', 'third'], $dead);
    }

    public function testAnActorHoldingItsPoisonPillStopsOnceItsWorkIsDone(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $ref = $kit->spawn(Behavior::setup(static function (ActorContext $ctx) use ($probe): Behavior {
            $ctx->holdPoisonPill(true); // a write in flight, as a persistent actor's

            $written = false;

            return Behavior::receive(static function (string $message, ActorContext $ctx) use ($probe, &$written): void {
                if ($message === 'written') {
                    $written = true;
                    $ctx->holdPoisonPill(false);
                    $ctx->unstashAll();
                } elseif (!$written) {
                    $ctx->stash();
                } else {
                    $probe->ref->tell($message);
                }
            });
        }), 'writer');
        $endpoint = $kit->system->endpoint($ref->path());
        self::assertNotNull($endpoint);
        $probe->watch($ref);
        $ref->tell('stashed');
        $kit->runUntilIdle();
        $endpoint->stopAfterCurrent(new PoisonPill());
        $kit->runUntilIdle();
        self::assertFalse($endpoint->isTerminated(), 'the pill waits behind the write');

        $ref->tell('written');
        $probe->expectMessage('stashed');
        $probe->expectTerminated($ref);
    }
}
