<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Bench;

use Nexus\Bench\Db\RateSearch;
use PHPUnit\Framework\TestCase;

final class RateSearchTest extends TestCase
{
    public function testRampsUpThenBisectsToTheCapacity(): void
    {
        [$best, $tried] = self::searchAgainst(new RateSearch(50, 10_000, 2.0, 0.1, 20), 730);

        self::assertSame([50, 100, 200, 400, 800], \array_slice($tried, 0, 5));
        self::assertNotNull($best);
        self::assertLessThanOrEqual(730, $best);
        self::assertGreaterThanOrEqual((int) (730 / 1.1), $best);
    }

    public function testStopsAtTheMaximumWhenEverythingHolds(): void
    {
        [$best, $tried] = self::searchAgainst(new RateSearch(100, 1000), \PHP_INT_MAX);

        self::assertSame([100, 200, 400, 800, 1000], $tried);
        self::assertSame(1000, $best);
    }

    public function testGoesDownWhenTheFirstRateFails(): void
    {
        $search = new RateSearch(100, 1000, 2.0, 0.1, 20);
        [$best, $tried] = self::searchAgainst($search, 30);

        self::assertSame([100, 50, 25], \array_slice($tried, 0, 3));
        self::assertNotNull($best);
        self::assertLessThanOrEqual(30, $best);
        self::assertGreaterThanOrEqual(27, $best);
        self::assertSame($best, $search->best());
    }

    public function testNothingHeldGivesNull(): void
    {
        $search = new RateSearch(10, 100, 2.0, 0.1, 20);
        [$best] = self::searchAgainst($search, 0);

        self::assertNull($best);
        self::assertSame(1, $search->ceiling());
    }

    public function testRespectsTheStepBudget(): void
    {
        $search = new RateSearch(50, 100_000, 2.0, 0.01, 4);
        [, $tried] = self::searchAgainst($search, 5000);

        self::assertSame([50, 100, 200, 400], $tried);
        self::assertSame(400, $search->best());
        self::assertSame(4, $search->steps());
    }

    public function testNextRepeatsUntilRecorded(): void
    {
        $search = new RateSearch(50, 1000);

        $first = $search->next();
        $again = $search->next();
        self::assertSame([50, 50], [$first, $again]);
        $this->expectException(\LogicException::class);
        $search->record(60, true);
    }

    public function testRejectsNonsense(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new RateSearch(100, 50);
    }

    /**
     * @return array{int|null, list<int>}
     */
    private static function searchAgainst(RateSearch $search, int $capacity): array
    {
        $tried = [];
        while (($rate = $search->next()) !== null) {
            $tried[] = $rate;
            $search->record($rate, $rate <= $capacity);
            if (\count($tried) > 50) {
                self::fail('The search did not end.');
            }
        }

        return [$search->best(), $tried];
    }
}
