<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Routing\BroadcastRouting;
use Nexus\Actor\Routing\ConsistentHashingRouting;
use Nexus\Actor\Routing\GetRoutees;
use Nexus\Actor\Routing\RandomRouting;
use Nexus\Actor\Routing\RoundRobinRouting;
use Nexus\Actor\Routing\Routees;
use Nexus\Actor\Routing\Routers;
use Nexus\TestKit\TestKit;
use Nexus\TestKit\TestProbe;
use PHPUnit\Framework\TestCase;
use Random\Engine\Mt19937;
use Random\Randomizer;

final class GroupRouterTest extends TestCase
{
    public function testRoundRobinRoutesToTheGivenRefsInTurn(): void
    {
        $kit = new TestKit();
        [$a, $b, $c] = self::probes($kit, 3);
        $router = $kit->spawn(Routers::group([$a->ref, $b->ref, $c->ref], new RoundRobinRouting()), 'router');

        for ($i = 1; $i <= 6; ++$i) {
            $router->tell("m{$i}");
        }

        self::assertSame(['m1', 'm4'], $a->receiveMessages(2));
        self::assertSame(['m2', 'm5'], $b->receiveMessages(2));
        self::assertSame(['m3', 'm6'], $c->receiveMessages(2));
        $a->expectNoMessage();
        $b->expectNoMessage();
        $c->expectNoMessage();
    }

    public function testRouteesSeeTheOriginalSender(): void
    {
        $kit = new TestKit();
        [$routee, $sender] = self::probes($kit, 2);
        $router = $kit->spawn(Routers::group([$routee->ref], new RoundRobinRouting()), 'router');

        $router->tell('hello', $sender->ref);

        $routee->expectMessage('hello');
        self::assertSame($sender->ref, $routee->lastSender());
    }

    public function testRandomRoutingReachesEveryRoutee(): void
    {
        $kit = new TestKit();
        $probes = self::probes($kit, 3);
        $router = $kit->spawn(Routers::group(self::refs($probes), new RandomRouting(new Randomizer(new Mt19937(1)))), 'router');

        for ($i = 0; $i < 300; ++$i) {
            $router->tell($i);
        }
        $kit->runUntilIdle();

        $total = 0;
        foreach ($probes as $probe) {
            self::assertGreaterThan(50, $probe->pending(), "{$probe->ref->path()} got too few of 300 messages.");
            $total += $probe->pending();
        }
        self::assertSame(300, $total);
    }

    public function testBroadcastRoutingReachesEveryRoutee(): void
    {
        $kit = new TestKit();
        $probes = self::probes($kit, 3);
        $router = $kit->spawn(Routers::group(self::refs($probes), new BroadcastRouting()), 'router');

        $router->tell('news');

        foreach ($probes as $probe) {
            $probe->expectMessage('news');
            $probe->expectNoMessage();
        }
    }

    public function testConsistentHashingSendsEqualKeysToOneRouteeAndKeepsThemWhenAnotherStops(): void
    {
        $kit = new TestKit();
        $probes = self::probes($kit, 4);
        $router = $kit->spawn(Routers::group(self::refs($probes), new ConsistentHashingRouting()), 'router');

        $before = self::ownersOfKeys($kit, $router, $probes, 40);
        self::assertGreaterThan(1, \count(array_unique($before)), 'All keys went to one routee.');

        $stopped = $probes[1];
        $kit->system->stop($stopped->ref);
        $kit->runUntilIdle();
        self::assertCount(3, self::routees($router));

        $survivors = [$probes[0], $probes[2], $probes[3]];
        $after = self::ownersOfKeys($kit, $router, $survivors, 40);
        foreach ($before as $key => $owner) {
            if ($owner !== $stopped->ref->path()) {
                self::assertSame($owner, $after[$key], "{$key} moved although its routee is still there.");
            }
        }
    }

    public function testDropsARouteeThatTerminates(): void
    {
        $kit = new TestKit();
        [$a, $b, $c] = self::probes($kit, 3);
        $router = $kit->spawn(Routers::group([$a->ref, $b->ref, $c->ref], new RoundRobinRouting()), 'router');

        $kit->system->stop($b->ref);
        $kit->runUntilIdle();

        self::assertSame([$a->ref, $c->ref], self::routees($router));
        for ($i = 1; $i <= 4; ++$i) {
            $router->tell("m{$i}");
        }
        self::assertSame(['m1', 'm3'], $a->receiveMessages(2));
        self::assertSame(['m2', 'm4'], $c->receiveMessages(2));
        self::assertSame(0, $kit->system->deadLetters->count());
    }

    public function testDoesNotSuperviseItsRoutees(): void
    {
        $kit = new TestKit();
        [$routee, $watcher] = self::probes($kit, 2);
        $router = $kit->spawn(Routers::group([$routee->ref], new RoundRobinRouting()), 'router');
        $watcher->watch($router);
        $kit->runUntilIdle();

        $kit->system->stop($router);
        $watcher->expectTerminated($router);

        self::assertSame($routee->ref, $kit->system->lookup($routee->ref->path()));
    }

    public function testKeepsRunningWithoutRouteesAndDeadLettersWhatItGets(): void
    {
        $kit = new TestKit();
        [$routee] = self::probes($kit, 1);
        $router = $kit->spawn(Routers::group([$routee->ref], new RoundRobinRouting()), 'router');

        $kit->system->stop($routee->ref);
        $kit->runUntilIdle();
        $router->tell('anyone?');
        $kit->runUntilIdle();

        self::assertSame($router, $kit->system->lookup('/user/router'));
        self::assertSame(1, $kit->system->deadLetters->countFor(DeadLetterReason::NoRecipient));
    }

    public function testAnEmptyGroupSendsMessagesToDeadLetters(): void
    {
        $kit = new TestKit();
        $router = $kit->spawn(Routers::group([], new RoundRobinRouting()), 'router');

        $router->tell('lost?');
        $router->tell('lost too?');
        $kit->runUntilIdle();

        self::assertSame(2, $kit->system->deadLetters->count());
        self::assertSame(2, $kit->system->deadLetters->countFor(DeadLetterReason::NoRecipient));
    }

    public function testRejectsRouteesThatAreNotActorRefs(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('routee 1 is string');

        $kit = new TestKit();
        // @phpstan-ignore argument.type (what a caller without static analysis could pass)
        Routers::group([$kit->probe()->ref, '/user/worker'], new RoundRobinRouting());
    }

    /**
     * @return list<TestProbe>
     */
    private static function probes(TestKit $kit, int $count): array
    {
        $probes = [];
        for ($i = 0; $i < $count; ++$i) {
            $probes[] = $kit->probe();
        }

        return $probes;
    }

    /**
     * @param list<TestProbe> $probes
     *
     * @return list<ActorRef>
     */
    private static function refs(array $probes): array
    {
        return array_map(static fn(TestProbe $probe): ActorRef => $probe->ref, $probes);
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

    /**
     * Sends two messages for each of $keys keys and returns which routee got each key, checking
     * that both messages of a key went to the same one.
     *
     * @param list<TestProbe> $probes
     *
     * @return array<string, string> routee path by key
     */
    private static function ownersOfKeys(TestKit $kit, ActorRef $router, array $probes, int $keys): array
    {
        for ($round = 0; $round < 2; ++$round) {
            for ($i = 0; $i < $keys; ++$i) {
                $router->tell(new KeyedMessage("key-{$i}", $round));
            }
        }
        $kit->runUntilIdle();

        $owners = [];
        foreach ($probes as $probe) {
            while ($probe->pending() > 0) {
                $message = $probe->receiveMessage(0.0);
                self::assertInstanceOf(KeyedMessage::class, $message);
                $key = (string) $message->key;
                $path = $probe->ref->path();
                self::assertSame($owners[$key] ?? $path, $path, "{$key} went to two routees.");
                $owners[$key] = $path;
            }
        }
        self::assertCount($keys, $owners);

        return $owners;
    }
}
