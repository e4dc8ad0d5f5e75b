<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Worker\RendezvousHash;
use PHPUnit\Framework\TestCase;

final class RendezvousHashTest extends TestCase
{
    public function testOwnersAreStableAndSpreadEvenly(): void
    {
        $counts = array_fill(0, 4, 0);
        for ($i = 0; $i < 4000; ++$i) {
            $owner = RendezvousHash::owner("counter/{$i}", 4);
            self::assertSame($owner, RendezvousHash::owner("counter/{$i}", 4));
            ++$counts[$owner];
        }

        foreach ($counts as $worker => $count) {
            self::assertGreaterThan(850, $count, "worker {$worker} owns about a quarter");
            self::assertLessThan(1150, $count, "worker {$worker} owns about a quarter");
        }
    }

    public function testAddingAWorkerMovesOnlyTheKeysItTakes(): void
    {
        $moved = 0;
        for ($i = 0; $i < 3000; ++$i) {
            $before = RendezvousHash::owner("k{$i}", 3);
            $after = RendezvousHash::owner("k{$i}", 4);
            if ($before !== $after) {
                self::assertSame(3, $after, 'a key only ever moves to the new worker');
                ++$moved;
            }
        }

        self::assertGreaterThan(550, $moved);
        self::assertLessThan(950, $moved);
    }

    public function testOneWorkerOwnsEverything(): void
    {
        self::assertSame(0, RendezvousHash::owner('anything', 1));
    }
}
