<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Routing\ConsistentHashingRouting;
use Nexus\Actor\Routing\UnroutableMessageException;
use PHPUnit\Framework\TestCase;

final class ConsistentHashingRoutingTest extends TestCase
{
    private const KEYS = 1000;

    public function testEqualKeysGoToTheSameRoutee(): void
    {
        $routees = self::routees(5);
        $logic = new ConsistentHashingRouting();

        $first = self::owners($logic, $routees);
        $second = self::owners($logic, $routees);

        self::assertSame($first, $second);
    }

    public function testKeysSpreadOverAllRoutees(): void
    {
        $routees = self::routees(5);

        $shares = array_count_values(self::owners(new ConsistentHashingRouting(), $routees));

        self::assertCount(5, $shares);
        foreach ($shares as $path => $keys) {
            // An even share is 200 keys; 100 virtual nodes keep every routee well within 100..300.
            self::assertGreaterThan(100, $keys, "{$path} owns too few keys.");
            self::assertLessThan(300, $keys, "{$path} owns too many keys.");
        }
    }

    public function testRemovingARouteeMovesOnlyTheKeysItOwned(): void
    {
        $routees = self::routees(5);
        $logic = new ConsistentHashingRouting();
        $before = self::owners($logic, $routees);
        $removed = $routees[2]->path();

        $after = self::owners($logic, [$routees[0], $routees[1], $routees[3], $routees[4]]);

        $moved = 0;
        foreach ($before as $key => $owner) {
            if ($owner === $removed) {
                self::assertNotSame($removed, $after[$key]);
                ++$moved;
            } else {
                self::assertSame($owner, $after[$key], "Key {$key} moved although its routee stayed.");
            }
        }
        // About 1/5 of the keys, not the ~4/5 that a modulo-based choice would move.
        self::assertGreaterThan(100, $moved);
        self::assertLessThan(300, $moved);
    }

    public function testAddingARouteeTakesOnlyAboutItsShare(): void
    {
        $routees = self::routees(5);
        $logic = new ConsistentHashingRouting();
        $before = self::owners($logic, \array_slice($routees, 0, 4));
        $added = $routees[4]->path();

        $after = self::owners($logic, $routees);

        $moved = 0;
        foreach ($before as $key => $owner) {
            if ($after[$key] !== $owner) {
                self::assertSame($added, $after[$key], "Key {$key} moved between two routees that both stayed.");
                ++$moved;
            }
        }
        self::assertGreaterThan(100, $moved);
        self::assertLessThan(300, $moved);
    }

    public function testTheRingDoesNotDependOnRouteeOrder(): void
    {
        $routees = self::routees(4);
        $logic = new ConsistentHashingRouting();

        self::assertSame(self::owners($logic, $routees), self::owners($logic, array_reverse($routees)));
    }

    public function testTheRingIsBuiltOnlyWhenTheRouteesChange(): void
    {
        $routees = self::routees(3);
        $logic = new ConsistentHashingRouting(virtualNodes: 10);

        $logic->select(new KeyedMessage('a'), $routees);
        $logic->select(new KeyedMessage('b'), $routees);
        $logic->select(new KeyedMessage('c'), $routees);
        self::assertSame([1, 1, 1], self::pathCalls($routees));

        $logic->select(new KeyedMessage('a'), [$routees[0], $routees[1]]);
        self::assertSame([2, 2, 1], self::pathCalls($routees));
    }

    public function testAKeyExtractorKeysMessagesThatAreNotConsistentHashable(): void
    {
        $routees = self::routees(5);
        $logic = new ConsistentHashingRouting(
            keyExtractor: static fn(mixed $message): ?string => \is_array($message) && \is_string($message['user'] ?? null) ? $message['user'] : null,
        );
        $plain = new ConsistentHashingRouting();

        for ($i = 0; $i < 50; ++$i) {
            self::assertSame(
                $plain->select(new KeyedMessage("user-{$i}"), $routees),
                $logic->select(['user' => "user-{$i}", 'action' => 'login'], $routees),
            );
            // The extractor has no key for this one, so the message's own key counts.
            self::assertSame(
                $plain->select(new KeyedMessage("user-{$i}"), $routees),
                $logic->select(new KeyedMessage("user-{$i}"), $routees),
            );
        }
    }

    public function testAnIntegerKeyRoutesLikeItsStringForm(): void
    {
        $routees = self::routees(5);
        $logic = new ConsistentHashingRouting();

        for ($i = 0; $i < 50; ++$i) {
            self::assertSame($logic->select(new KeyedMessage((string) $i), $routees), $logic->select(new KeyedMessage($i), $routees));
        }
    }

    public function testAMessageWithoutAKeyCannotBeRouted(): void
    {
        $this->expectException(UnroutableMessageException::class);
        $this->expectExceptionMessage('ConsistentHashable');

        (new ConsistentHashingRouting())->select('no key here', self::routees(2));
    }

    public function testNoRouteesSelectNobody(): void
    {
        self::assertSame([], (new ConsistentHashingRouting())->select(new KeyedMessage('a'), []));
    }

    public function testNeedsAtLeastOneVirtualNode(): void
    {
        $this->expectException(\InvalidArgumentException::class);

        new ConsistentHashingRouting(virtualNodes: 0);
    }

    /**
     * @param list<ActorRef> $routees
     *
     * @return array<string, string> routee path by key, for self::KEYS keys
     */
    private static function owners(ConsistentHashingRouting $logic, array $routees): array
    {
        $owners = [];
        for ($i = 0; $i < self::KEYS; ++$i) {
            $selected = $logic->select(new KeyedMessage("key-{$i}"), $routees);
            self::assertCount(1, $selected);
            $owners["key-{$i}"] = $selected[0]->path();
        }

        return $owners;
    }

    /**
     * @return list<PathCountingRef>
     */
    private static function routees(int $count): array
    {
        $refs = [];
        for ($i = 1; $i <= $count; ++$i) {
            $refs[] = new PathCountingRef("/user/worker-{$i}");
        }

        return $refs;
    }

    /**
     * @param list<PathCountingRef> $routees
     *
     * @return list<int>
     */
    private static function pathCalls(array $routees): array
    {
        return array_map(static fn(PathCountingRef $ref): int => $ref->pathCalls, $routees);
    }
}
