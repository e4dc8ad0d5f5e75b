<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\Event\DeadLetter;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Routing\Broadcast;
use Nexus\Actor\Routing\ConsistentHashingRouting;
use Nexus\Actor\Routing\RoundRobinRouting;
use Nexus\Actor\Routing\Routers;
use Nexus\Actor\Routing\RoutingLogic;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class RouterMessagesTest extends TestCase
{
    public function testBroadcastReachesEveryRouteeOfARoundRobinRouter(): void
    {
        $kit = new TestKit();
        [$a, $b, $c, $sender] = [$kit->probe(), $kit->probe(), $kit->probe(), $kit->probe()];
        $router = $kit->spawn(Routers::group([$a->ref, $b->ref, $c->ref], new RoundRobinRouting()), 'router');

        $router->tell('first');
        $router->tell(new Broadcast('to all'), $sender->ref);
        $router->tell('second');

        self::assertSame(['first', 'to all'], $a->receiveMessages(2));
        self::assertSame($sender->ref, $a->lastSender());
        // The broadcast did not take a round-robin turn: 'second' goes to the next routee in line.
        self::assertSame(['to all', 'second'], $b->receiveMessages(2));
        $c->expectMessage('to all');
        $a->expectNoMessage();
        $c->expectNoMessage();
    }

    public function testABroadcastToNoRouteesGoesToDeadLetters(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::group([], new RoundRobinRouting()), 'router');

        $router->tell(new Broadcast('anyone?'));
        $kit->runUntilIdle();

        self::assertSame(1, $kit->system->deadLetters->countFor(DeadLetterReason::NoRecipient));
    }

    public function testAMessageWithoutAHashKeyGoesToDeadLettersAndTheRouterCarriesOn(): void
    {
        $kit = new TestKit();
        $routee = $kit->probe();
        $router = $kit->spawn(Routers::group([$routee->ref], new ConsistentHashingRouting()), 'router');
        $kit->system->eventStream->subscribe($routee->ref, DeadLetter::class);

        $router->tell('no key');
        $router->tell(new KeyedMessage('k'));

        $letter = $routee->expectMessageClass(DeadLetter::class);
        self::assertSame('no key', $letter->message);
        self::assertSame('/user/router', $letter->recipient);
        self::assertSame(DeadLetterReason::NoRecipient, $letter->reason);
        $routee->expectMessage(new KeyedMessage('k'));
        self::assertCount(1, array_filter(
            $kit->logger->messages('warning'),
            static fn(string $message): bool => str_contains($message, 'cannot route string'),
        ));
        self::assertSame([], $kit->logger->messages('error'), 'The router failed instead of dead-lettering the message.');
    }

    public function testAMessageTheLogicSelectsNobodyForGoesToDeadLetters(): void
    {
        $kit = new TestKit();
        $routee = $kit->probe();
        $nobody = new class implements RoutingLogic {
            public function select(mixed $message, array $routees): array
            {
                return [];
            }
        };
        $router = $kit->spawn(Routers::group([$routee->ref], $nobody), 'router');

        $router->tell('for nobody');
        $kit->runUntilIdle();

        self::assertSame(1, $kit->system->deadLetters->countFor(DeadLetterReason::NoRecipient));
        $routee->expectNoMessage();
    }
}
