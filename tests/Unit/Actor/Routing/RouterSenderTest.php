<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Props;
use Nexus\Actor\Routing\Broadcast;
use Nexus\Actor\Routing\RoundRobinRouting;
use Nexus\Actor\Routing\Routers;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class RouterSenderTest extends TestCase
{
    public function testAMessageWithoutSenderReachesRouteesWithoutSender(): void
    {
        $kit = new TestKit();
        $echo = Props::fromBehavior(Behavior::receive(static function (mixed $message, ActorContext $ctx): void {
            $ctx->reply($message);
        }));
        $router = $kit->spawn(Routers::pool(3, $echo, new RoundRobinRouting()), 'echoes');
        $router->tell('ping');
        $router->tell(new Broadcast('hello all'));

        // Replies have nobody to go to: they become dead letters instead of bouncing back into the
        // router forever.
        $kit->runUntilIdle();

        self::assertSame(4, $kit->system->deadLetters->countFor(DeadLetterReason::NoSender));
    }
}
