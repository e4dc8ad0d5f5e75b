<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\Behavior;
use Nexus\Actor\Event\ActorFailed;
use Nexus\Actor\Event\ActorRestarted;
use Nexus\Actor\Event\ActorStarted;
use Nexus\Actor\Event\ActorStopped;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

interface ShopEvent {}

final class OrderPlaced implements ShopEvent
{
    public function __construct(public readonly int $id) {}
}

final class OrderShipped implements ShopEvent
{
    public function __construct(public readonly int $id) {}
}

final class EventStreamTest extends TestCase
{
    public function testSubscribersGetEventsOfTheirClassAndOfSubclassesAndInterfaces(): void
    {
        $kit = new TestKit();
        $placedOnly = $kit->probe();
        $everything = $kit->probe();
        $stream = $kit->system->eventStream;
        $stream->subscribe($placedOnly->ref, OrderPlaced::class);
        $stream->subscribe($everything->ref, ShopEvent::class);

        self::assertSame(2, $stream->publish(new OrderPlaced(1)));
        self::assertSame(1, $stream->publish(new OrderShipped(1)));
        self::assertSame(0, $stream->publish(new \stdClass()));

        $placedOnly->expectMessage(new OrderPlaced(1));
        $placedOnly->expectNoMessage();
        $everything->expectMessage(new OrderPlaced(1));
        $everything->expectMessage(new OrderShipped(1));
    }

    public function testUnsubscribeEndsOneOrAllSubscriptions(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $stream = $kit->system->eventStream;
        $stream->subscribe($probe->ref, OrderPlaced::class);
        $stream->subscribe($probe->ref, OrderShipped::class);
        $stream->unsubscribe($probe->ref, OrderPlaced::class);

        self::assertSame(0, $stream->publish(new OrderPlaced(1)));
        self::assertSame(1, $stream->publish(new OrderShipped(1)));
        $stream->unsubscribe($probe->ref);
        self::assertSame(0, $stream->publish(new OrderShipped(2)));
        self::assertFalse($stream->hasSubscribers(OrderShipped::class));
    }

    public function testSubscriptionsEndWhenTheSubscriberStops(): void
    {
        $kit = new TestKit();
        $subscriber = $kit->spawn(Behavior::ignore());
        $kit->system->eventStream->subscribe($subscriber, OrderPlaced::class);
        $kit->system->stop($subscriber);
        $kit->runUntilIdle();

        self::assertSame(0, $kit->system->eventStream->publish(new OrderPlaced(1)));
        self::assertSame(0, $kit->system->deadLetters->count());
    }

    public function testSubscribingToAnUnknownClassIsAClearError(): void
    {
        $kit = new TestKit();

        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('no such class or interface');
        $kit->system->eventStream->subscribe($kit->probe()->ref, 'No\\Such\\Event'); // @phpstan-ignore argument.type
    }

    public function testTheSystemPublishesLifecycleAndFailureEvents(): void
    {
        $kit = new TestKit();
        $probe = $kit->probe();
        $kit->runUntilIdle(); // the probe's own start is not part of this test
        foreach ([ActorStarted::class, ActorStopped::class, ActorFailed::class, ActorRestarted::class] as $class) {
            $kit->system->eventStream->subscribe($probe->ref, $class);
        }
        $ref = $kit->spawn(Behavior::receive(static function (): void {
            throw new \RuntimeException('oops');
        }));
        $ref->tell('crash');
        $kit->runUntilIdle();
        $kit->system->stop($ref);

        self::assertSame($ref, $probe->expectMessageClass(ActorStarted::class)->actor);
        $failed = $probe->expectMessageClass(ActorFailed::class);
        self::assertSame('crash', $failed->message);
        self::assertSame('oops', $failed->error->getMessage());
        self::assertSame($ref, $probe->expectMessageClass(ActorRestarted::class)->actor);
        self::assertSame($ref, $probe->expectMessageClass(ActorStopped::class)->actor);
    }
}
