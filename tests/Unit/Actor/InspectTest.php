<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor;

use Nexus\Actor\Actor;
use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Props;
use Nexus\Log\MemoryLogger;
use Nexus\TestKit\TestKit;
use PHPUnit\Framework\TestCase;

/**
 * What the actor layer tells observability: ActorSystem::inspect() (path, kind, mailbox depth,
 * messages processed) and ActorStats (ask timeouts, stopped actors' counts, sampled time).
 */
final class InspectTest extends TestCase
{
    /**
     * @return list<array{string, string, int, int}>
     */
    private static function inspect(TestKit $kit, int $limit = \PHP_INT_MAX): array
    {
        $rows = [];
        $kit->system->inspect(static function (string $path, string $kind, int $mailbox, int $processed) use (&$rows): void {
            $rows[] = [$path, $kind, $mailbox, $processed];
        }, $limit);

        return $rows;
    }

    public function testItWalksParentsBeforeChildrenWithKindsMailboxesAndCounts(): void
    {
        $kit = new TestKit();
        $parent = $kit->spawn(Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx): Behavior {
            $ctx->spawn(Props::fromClass(InspectedActor::class), 'child');

            return Behavior::receive(static fn(): null => null);
        }))->withKind('parent'), 'parent');
        $line = __LINE__ + 1;
        $plain = $kit->spawn(Behavior::receive(static fn(): null => null), 'plain');
        $kit->runUntilIdle();
        for ($i = 0; $i < 5; ++$i) {
            $parent->tell($i);
        }
        $kit->runUntilIdle();
        $plain->tell('waiting');
        $plain->tell('waiting');

        self::assertSame([
            ['/user', 'guardian', 0, 0],
            ['/user/parent', 'parent', 0, 5],
            ['/user/parent/child', InspectedActor::class, 0, 0],
            ['/user/plain', "InspectTest.php:{$line}", 2, 0],
            ['/system', 'guardian', 0, 0],
        ], self::inspect($kit));
        self::assertCount(2, self::inspect($kit, 2), 'at most $limit actors');

        $kit->runUntilIdle();
        self::assertSame(['/user/plain', "InspectTest.php:{$line}", 0, 2], self::inspect($kit)[3]);
    }

    public function testAskTimeoutsAreCounted(): void
    {
        $kit = new TestKit();
        $silent = $kit->spawn(Behavior::receive(static fn(): null => null));
        $future = $silent->ask('anyone?', 1.0);
        $kit->advance(1.5);

        self::assertTrue($future->isSettled());
        try {
            $future->await();
            self::fail('the ask should have timed out');
        } catch (AskTimeoutException) {
        }
        self::assertSame(1, $kit->system->stats->askTimeouts);
    }

    public function testEnabledStatsKeepTheCountsOfStoppedActorsAndSampleProcessingTime(): void
    {
        $kit = new TestKit();
        $counter = Props::fromBehavior(Behavior::receive(static fn(): null => null))->withKind('counter');
        $stopped = $kit->spawn($counter);
        $stopped->tell(1);
        $kit->runUntilIdle();
        $kit->system->stop($stopped);
        $kit->runUntilIdle();
        self::assertSame([], $kit->system->stats->processedByStopped, 'nothing is kept while disabled');

        // On a real loop: the sampling timer runs in real time and keeps nothing alive.
        $system = new ActorSystem('stats', new MemoryLogger());
        $system->enableStats();
        $live = $system->spawn($counter);
        $deadline = microtime(true) + 10.0;
        while (($system->stats->sampledTurns['counter'] ?? 0) < 3 && microtime(true) < $deadline) {
            $live->tell('work');
            $system->loop->tick(); // sleeps until the next timer at most: 1/20 s
        }
        self::assertGreaterThanOrEqual(3, $system->stats->sampledTurns['counter'] ?? 0, 'the sampling timer marks a turn 20 times a second');
        self::assertGreaterThanOrEqual(3, $system->stats->sampledMessages['counter'] ?? 0);
        self::assertGreaterThan(0.0, $system->stats->sampledSeconds['counter'] ?? 0.0);

        $processed = 0;
        $system->inspect(static function (string $path, string $kind, int $mailbox, int $count) use (&$processed): void {
            if ($kind === 'counter') {
                $processed = $count;
            }
        });
        self::assertGreaterThanOrEqual(3, $processed);
        $system->stop($live);
        while ($system->lookup($live->path()) !== null && microtime(true) < $deadline + 5.0) {
            $system->loop->tick();
        }
        self::assertSame(['counter' => $processed], $system->stats->processedByStopped);
        $system->shutdown();
        $system->run();
    }

    public function testAKindIsSomeWordsNeverEmpty(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Props::fromBehavior(Behavior::ignore())->withKind('');
    }
}

final class InspectedActor extends Actor
{
    public function receive(mixed $message, ActorContext $ctx): ?Behavior
    {
        return null;
    }
}
