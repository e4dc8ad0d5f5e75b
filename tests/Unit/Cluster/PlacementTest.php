<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Cluster;

use Nexus\Cluster\Member;
use Nexus\Cluster\Placement;
use Nexus\Cluster\View;
use Nexus\Worker\RendezvousHash;
use Nexus\Worker\Slots;
use PHPUnit\Framework\TestCase;

/**
 * Placement is a pure function of a view's slots and a key; the view says when it is settled.
 */
final class PlacementTest extends TestCase
{
    public function testOverAPoolsWorkersItIsThePoolsRendezvousHash(): void
    {
        for ($i = 0; $i < 500; ++$i) {
            self::assertSame(RendezvousHash::owner("counter/{$i}", 4), Placement::owner([0, 1, 2, 3], "counter/{$i}"));
        }
        self::assertNull(Placement::owner([], 'anything'));
    }

    public function testAJoiningNodeTakesOnlyKeysAndALeavingOneGivesOnlyItsOwn(): void
    {
        $three = [...self::member('a', 10, 2)->slots(), ...self::member('b', 20, 2)->slots(), ...self::member('c', 30, 2)->slots()];
        $four = [...$three, ...self::member('d', 40, 2)->slots()];
        $moved = 0;
        for ($i = 0; $i < 4000; ++$i) {
            $before = Placement::owner($three, "k{$i}");
            $after = Placement::owner($four, "k{$i}");
            self::assertNotNull($after);
            if ($before !== $after) {
                self::assertSame(40, Slots::node($after), 'a key only moves to the node that joined');
                ++$moved;
            }
        }
        self::assertGreaterThan(700, $moved, 'about a quarter moves');
        self::assertLessThan(1300, $moved);
    }

    public function testAViewIsSettledOnceEveryMemberAppliedItsLatestJoinOrLeave(): void
    {
        $a = self::member('a', 10, 2);
        $b = self::member('b', 20, 1);
        $view = new View(25, [$a->with(false, 0, 25), $b->with(false, 0, 19)]);
        self::assertSame(20, $view->barrier());
        self::assertFalse($view->settled(), 'b has not applied its own join');
        self::assertTrue((new View(25, [$a->with(false, 0, 25), $b->with(false, 0, 20)]))->settled());

        $leaving = new View(31, [$a->with(true, 31, 25), $b->with(false, 0, 25)]);
        self::assertSame([Slots::id(20, 0)], $leaving->slots, 'a leaving member is given nothing');
        self::assertSame(31, $leaving->barrier());
        self::assertFalse($leaving->settled());
        self::assertSame([Slots::id(10, 0) => 'tcp://10.0.0.10:7000', Slots::id(10, 1) => 'tcp://10.0.0.10:7001', Slots::id(20, 0) => 'tcp://10.0.0.20:7000'], $leaving->addresses());

        $copy = View::decode($leaving->encode());
        self::assertNotNull($copy);
        self::assertSame($leaving->encode(), $copy->encode());
        self::assertSame($leaving->slots, $copy->slots);
        self::assertNull(View::decode('{"not": "a view"}'));
    }

    public function testAMemberRecordRoundTripsAndMalformedOnesAreRefused(): void
    {
        $member = self::member('a', 10, 2);
        $back = Member::decode('/k', $member->encode(), 10);
        self::assertNotNull($back);
        self::assertSame(['a', 10, $member->workers, 'store-1'], [$back->name, $back->incarnation, $back->workers, $back->store]);
        self::assertNull(Member::decode('/k', '{"name":"a","workers":["unix:///x"],"store":"s"}', 10), 'workers are TCP addresses');
        self::assertNull(Member::decode('/k', '{"name":"a","workers":[],"store":"s"}', 10));
        self::assertNull(Member::decode('/k', 'nonsense', 10));
    }

    private static function member(string $name, int $incarnation, int $workers): Member
    {
        $addresses = [];
        for ($w = 0; $w < $workers; ++$w) {
            $addresses[] = "tcp://10.0.0.{$incarnation}:700{$w}";
        }

        return new Member($name, $incarnation, $addresses, 'store-1');
    }
}
