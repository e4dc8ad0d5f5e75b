<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Runtime;

use Nexus\Runtime\TimerQueue;
use PHPUnit\Framework\TestCase;

final class TimerQueueTest extends TestCase
{
    public function testEmptyQueue(): void
    {
        $queue = new TimerQueue();

        self::assertTrue($queue->isEmpty());
        self::assertSame(0, $queue->count());
        self::assertNull($queue->peekDue());
    }

    public function testExtractsInDueOrder(): void
    {
        $queue = new TimerQueue();
        $dues = [7 => 3.5, 1 => 0.25, 9 => 10.0, 4 => 1.0, 2 => 0.5, 5 => 2.0];
        foreach ($dues as $id => $due) {
            $queue->insert($id, $due);
        }

        self::assertSame(6, $queue->count());
        self::assertSame([1, 2, 4, 5, 7, 9], self::drain($queue));
        self::assertTrue($queue->isEmpty());
    }

    public function testEqualDueTimesComeOutInInsertionOrder(): void
    {
        $queue = new TimerQueue();
        for ($id = 1; $id <= 100; ++$id) {
            $queue->insert($id, 5.0);
        }

        self::assertSame(range(1, 100), self::drain($queue));
    }

    public function testTiesAreBrokenByInsertionOrderAmongMixedDueTimes(): void
    {
        $queue = new TimerQueue();
        $expected = [[], [], []];
        // Ids inserted round-robin over three due times, so every tie group is spread over the heap.
        for ($id = 1; $id <= 60; ++$id) {
            $slot = ($id * 7) % 3;
            $queue->insert($id, (float) $slot);
            $expected[$slot][] = $id;
        }

        self::assertSame(array_merge(...$expected), self::drain($queue));
    }

    public function testInsertionsBetweenExtractionsKeepTheOrder(): void
    {
        $queue = new TimerQueue();
        $queue->insert(1, 1.0);
        $queue->insert(2, 1.0);
        self::assertSame(1, $queue->extract());
        $queue->insert(3, 1.0);
        $queue->insert(4, 0.5);

        self::assertSame(0.5, $queue->peekDue());
        self::assertSame(4, $queue->peekId());
        self::assertSame([4, 2, 3], self::drain($queue));
    }

    public function testRetainDropsDeadIdsAndKeepsDueAndInsertionOrder(): void
    {
        $queue = new TimerQueue();
        for ($id = 1; $id <= 40; ++$id) {
            $queue->insert($id, $id % 2 === 0 ? 1.0 : 2.0);
        }

        $queue->retain(static fn(int $id): bool => $id % 4 !== 0);

        self::assertSame(30, $queue->count());
        $expected = array_merge(
            array_values(array_filter(range(2, 40, 2), static fn(int $id): bool => $id % 4 !== 0)),
            range(1, 39, 2),
        );
        self::assertSame($expected, self::drain($queue));
    }

    public function testRetainedEntriesKeepTheirPlaceAgainstLaterInsertions(): void
    {
        $queue = new TimerQueue();
        $queue->insert(1, 1.0);
        $queue->insert(2, 1.0);
        $queue->insert(3, 1.0);
        $queue->retain(static fn(int $id): bool => $id !== 1);
        $queue->insert(4, 1.0);

        self::assertSame([2, 3, 4], self::drain($queue));
    }

    /**
     * @return list<int>
     */
    private static function drain(TimerQueue $queue): array
    {
        $ids = [];
        while (!$queue->isEmpty()) {
            $ids[] = $queue->extract();
        }

        return $ids;
    }
}
