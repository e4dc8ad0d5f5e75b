<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Routing\BroadcastRouting;
use Nexus\Actor\Routing\RandomRouting;
use Nexus\Actor\Routing\RoundRobinRouting;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;
use Random\Engine\Mt19937;
use Random\Randomizer;

final class RoutingLogicTest extends TestCase
{
    public function testRoundRobinPicksEachRouteeInTurn(): void
    {
        [$a, $b, $c] = $routees = self::routees(3);
        $logic = new RoundRobinRouting();

        $picked = [];
        for ($i = 0; $i < 7; ++$i) {
            $picked = [...$picked, ...$logic->select("m{$i}", $routees)];
        }

        self::assertSame([$a, $b, $c, $a, $b, $c, $a], $picked);
    }

    public function testRoundRobinSelectsNobodyFromNoRoutees(): void
    {
        self::assertSame([], (new RoundRobinRouting())->select('m', []));
    }

    public function testRandomReachesEveryRoutee(): void
    {
        $routees = self::routees(3);
        $logic = new RandomRouting(new Randomizer(new Mt19937(7)));

        $hits = self::tally($logic, $routees, 300);

        foreach ($routees as $routee) {
            self::assertGreaterThan(50, $hits[$routee->path()] ?? 0, "{$routee->path()} got too few of 300 messages.");
        }
    }

    public function testRandomFollowsItsRandomizer(): void
    {
        $routees = self::routees(5);
        $first = new RandomRouting(new Randomizer(new Mt19937(42)));
        $second = new RandomRouting(new Randomizer(new Mt19937(42)));

        for ($i = 0; $i < 50; ++$i) {
            self::assertSame($first->select($i, $routees), $second->select($i, $routees));
        }
    }

    public function testBroadcastSelectsEveryRoutee(): void
    {
        $routees = self::routees(3);

        self::assertSame($routees, (new BroadcastRouting())->select('m', $routees));
    }

    /**
     * @return list<ActorRef>
     */
    private static function routees(int $count): array
    {
        $kit = new TestKit();
        $refs = [];
        for ($i = 0; $i < $count; ++$i) {
            $refs[] = $kit->probe()->ref;
        }

        return $refs;
    }

    /**
     * @param list<ActorRef> $routees
     *
     * @return array<string, int> messages per routee path
     */
    private static function tally(RandomRouting $logic, array $routees, int $messages): array
    {
        $hits = [];
        for ($i = 0; $i < $messages; ++$i) {
            foreach ($logic->select($i, $routees) as $routee) {
                $hits[$routee->path()] = ($hits[$routee->path()] ?? 0) + 1;
            }
        }

        return $hits;
    }
}
