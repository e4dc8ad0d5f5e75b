<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;
use Nexus\Actor\Routing\Broadcast;
use Nexus\Actor\Routing\GetRoutees;
use Nexus\Actor\Routing\RoundRobinRouting;
use Nexus\Actor\Routing\Routees;
use Nexus\Actor\Routing\Routers;
use Nexus\Actor\Supervision\Directive;
use Nexus\Actor\Supervision\SupervisorStrategy;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

final class PoolRouterTest extends TestCase
{
    public function testSpawnsItsRouteesAsChildren(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::pool(3, self::counter(), new RoundRobinRouting()), 'router');

        $routees = self::routees($router);

        self::assertCount(3, $routees);
        $paths = array_map(static fn(ActorRef $routee): string => $routee->path(), $routees);
        self::assertCount(3, array_unique($paths));
        foreach ($routees as $routee) {
            self::assertMatchesRegularExpression('#^/user/router/\$\d+$#', $routee->path());
            self::assertSame($routee, $kit->system->lookup($routee->path()));
        }
    }

    public function testRoutesToEachRouteeInTurn(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::pool(3, self::counter(), new RoundRobinRouting()), 'router');
        $paths = array_map(static fn(ActorRef $routee): string => $routee->path(), self::routees($router));

        $repliers = [];
        for ($i = 0; $i < 6; ++$i) {
            $repliers[] = self::ask($router, 'count')[0];
        }

        self::assertSame([...$paths, ...$paths], $repliers);
    }

    public function testAnAskThroughTheRouterGetsTheRouteesReply(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::pool(2, self::counter(), new RoundRobinRouting()), 'router');

        [$path, $count] = self::ask($router, 'count');

        self::assertStringStartsWith('/user/router/$', $path);
        self::assertSame(1, $count);
    }

    public function testRestartsAFailingRouteeWithFreshState(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::pool(1, self::counter(), new RoundRobinRouting()), 'router');
        [$routee] = self::routees($router);
        self::assertSame(1, self::ask($router, 'count')[1]);
        self::assertSame(2, self::ask($router, 'count')[1]);

        $router->tell('boom');

        self::assertSame([$routee->path(), 1], self::ask($router, 'count'));
        self::assertSame([$routee], self::routees($router));
    }

    public function testUsesTheStrategyItIsGiven(): void
    {
        $kit = new TestKit();
        $stopOnFailure = SupervisorStrategy::oneForOne(static fn(): Directive => Directive::Stop);
        $router = $kit->spawn(Routers::pool(2, self::counter(), new RoundRobinRouting(), $stopOnFailure), 'router');
        [$first, $second] = self::routees($router);

        $router->tell('boom');
        $kit->runUntilIdle();

        self::assertSame([$second], self::routees($router));
        self::assertNull($kit->system->lookup($first->path()));
    }

    public function testDropsARouteeThatIsStopped(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::pool(2, self::counter(), new RoundRobinRouting()), 'router');
        [$first, $second] = self::routees($router);

        $kit->system->stop($first);
        $kit->runUntilIdle();

        self::assertSame([$second], self::routees($router));
        for ($i = 1; $i <= 3; ++$i) {
            self::assertSame([$second->path(), $i], self::ask($router, 'count'));
        }
        self::assertSame(0, $kit->system->deadLetters->count());
    }

    public function testStopsWhenAllRouteesAreGone(): void
    {
        $kit = new TestKit();
        $watcher = $kit->probe();
        $router = $kit->spawn(Routers::pool(2, self::counter(), new RoundRobinRouting()), 'router');
        [$first, $second] = self::routees($router);
        $watcher->watch($router);
        $kit->runUntilIdle();

        $kit->system->stop($first);
        $kit->runUntilIdle();
        self::assertSame($router, $kit->system->lookup('/user/router'));
        $kit->system->stop($second);

        $watcher->expectTerminated($router);
        self::assertNull($kit->system->lookup('/user/router'));
    }

    public function testABroadcastPoisonPillStopsTheRouteesAndSoTheRouter(): void
    {
        $kit = new TestKit();
        $watcher = $kit->probe();
        $router = $kit->spawn(Routers::pool(3, self::counter(), new RoundRobinRouting()), 'router');
        $routees = self::routees($router);
        $watcher->watch($router);
        $kit->runUntilIdle();

        // A probe as sender keeps replies away from the router, so a broken Broadcast fails instead of looping.
        $router->tell(new Broadcast(new PoisonPill()), $watcher->ref);

        $watcher->expectTerminated($router);
        foreach ($routees as $routee) {
            self::assertNull($kit->system->lookup($routee->path()));
        }
    }

    public function testStoppingTheRouterStopsItsRoutees(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::pool(2, self::counter(), new RoundRobinRouting()), 'router');
        $routees = self::routees($router);

        $kit->system->stop($router);
        $kit->runUntilIdle();

        foreach ($routees as $routee) {
            self::assertNull($kit->system->lookup($routee->path()));
        }
    }

    public function testNeedsAtLeastOneRoutee(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        Routers::pool(0, self::counter(), new RoundRobinRouting());
    }

    /**
     * Replies [its path, how many 'count' it got] to 'count' and throws on 'boom'. It answers
     * nothing else, so that a reply which wrongly comes back through the router cannot loop.
     */
    private static function counter(): Props
    {
        return Props::fromBehavior(Behavior::withState(0, static function (int $count, mixed $message, ActorContext $ctx): int|Behavior {
            if ($message === 'boom') {
                throw new \RuntimeException('boom');
            }
            if ($message !== 'count') {
                return Behavior::unhandled();
            }
            ++$count;
            $ctx->reply([$ctx->path(), $count]);

            return $count;
        }));
    }

    /**
     * @return array{string, int}
     */
    private static function ask(ActorRef $router, string $message): array
    {
        $reply = $router->ask($message, 1.0)->await();
        self::assertIsArray($reply);
        self::assertCount(2, $reply);
        [$path, $count] = $reply;
        self::assertIsString($path);
        self::assertIsInt($count);

        return [$path, $count];
    }

    /**
     * @return list<ActorRef>
     */
    private static function routees(ActorRef $router): array
    {
        $reply = $router->ask(new GetRoutees(), 1.0)->await();
        self::assertInstanceOf(Routees::class, $reply);

        return $reply->refs;
    }
}
