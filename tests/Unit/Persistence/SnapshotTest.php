<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Signal\Signal;
use Nexus\Persistence\Effect;
use Nexus\Persistence\EventSourcedBehavior;
use Nexus\Persistence\Exception\EventsMissingException;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Signal\RecoveryFailed;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\SnapshotRecord;
use Nexus\TestKit\TestKit;
use Nexus\Tests\Unit\Persistence\Fixture\Added;
use Nexus\Tests\Unit\Persistence\Fixture\Tally;
use PHPUnit\Framework\TestCase;

final class SnapshotTest extends TestCase
{
    private TestKit $kit;
    private InMemoryStore $store;

    protected function setUp(): void
    {
        $this->kit = new TestKit();
        $this->store = new InMemoryStore($this->kit->loop);
    }

    public function testASnapshotIsTakenEveryNEventsAndOnlyTheLatestAreKept(): void
    {
        $persistence = $this->persistence();
        $tally = $this->kit->spawn(self::tally($persistence, 't|every')->withSnapshots(every: 3, keep: 2)->behavior());

        for ($i = 1; $i <= 7; ++$i) {
            $this->ask($tally, $i);
        }
        $this->kit->runUntilIdle();

        self::assertSame(6, $this->store->loadSnapshot('t|every')->await()?->sequenceNr);
        self::assertSame(3, $this->store->loadSnapshot('t|every', 5)->await()?->sequenceNr);
        $this->ask($tally, 8);
        $this->ask($tally, 9);
        $this->kit->runUntilIdle();
        self::assertNull($this->store->loadSnapshot('t|every', 5)->await(), 'keep 2: the one at 3 went when the one at 9 came');

        $again = $this->kit->spawn(self::tally($persistence, 't|every')->withSnapshots(every: 3, keep: 2)->behavior());
        self::assertSame(45, $this->total($again));
    }

    public function testRecoveryStartsFromTheSnapshotAndReadsOnlyTheEventsAfterIt(): void
    {
        $persistence = $this->persistence();
        $tally = $this->kit->spawn(self::tally($persistence, 't|from')->withSnapshots(every: 5, deleteEvents: true)->behavior());
        for ($i = 1; $i <= 12; ++$i) {
            $this->ask($tally, 1);
        }
        $this->kit->runUntilIdle();

        self::assertSame([6, 7, 8, 9, 10, 11, 12], array_map(static fn($e): int => $e->sequenceNr, $this->store->readEvents('t|from', 1, 100, 100)->await()), 'events before the oldest kept snapshot (5) were deleted');
        $again = $this->kit->spawn(self::tally($persistence, 't|from')->withSnapshots(every: 5, deleteEvents: true)->behavior());
        self::assertSame(12, $this->total($again));
        self::assertSame(13, $this->total($again, 1));
    }

    public function testAPredicateDecidesWhenToSnapshot(): void
    {
        $persistence = $this->persistence();
        $tally = $this->kit->spawn(self::tally($persistence, 't|when')->withSnapshots(when: static fn(Tally $state, Added $event): bool => $event->amount >= 100)->behavior());

        $this->ask($tally, 1);
        $this->ask($tally, 2);
        $this->kit->runUntilIdle();
        self::assertNull($this->store->loadSnapshot('t|when')->await());
        $this->ask($tally, 100);
        $this->ask($tally, 3);
        $this->kit->runUntilIdle();

        self::assertSame(3, $this->store->loadSnapshot('t|when')->await()?->sequenceNr);
    }

    public function testASnapshotThatNoLongerDecodesFallsBackToAnOlderOneOrToTheEvents(): void
    {
        $persistence = $this->persistence();
        $tally = $this->kit->spawn(self::tally($persistence, 't|bad')->withSnapshots(every: 2, keep: 3)->behavior());
        for ($i = 1; $i <= 5; ++$i) {
            $this->ask($tally, $i);
        }
        $this->kit->runUntilIdle();
        // The latest snapshot (at 4) from a state class that has since changed shape.
        $this->store->saveSnapshots([new SnapshotRecord('t|bad', 4, new Payload('tally.state', 1, PayloadFormat::Json, '{"sum":10}'))], 3)->await();

        $again = $this->kit->spawn(self::tally($persistence, 't|bad')->withSnapshots(every: 2, keep: 3)->behavior());
        self::assertSame(15, $this->total($again), 'from the snapshot at 2 and the events after it');
        self::assertNotEmpty(array_filter($this->kit->logger->messages('warning'), static fn(string $m): bool => str_contains($m, 'no longer decodes')));

        // Bump the state's version with no upcaster: no snapshot decodes; every event is replayed.
        $bumped = $this->persistence((new TypeRegistry())->register(Added::class, 'tally.added')->register(Tally::class, 'tally.state', version: 2));
        $third = $this->kit->spawn(self::tally($bumped, 't|bad')->withSnapshots(every: 2, keep: 3)->behavior());
        self::assertSame(15, $this->total($third));
    }

    public function testDeletedEventsThatNoSnapshotCoversFailTheRecoveryInsteadOfBuildingAWrongState(): void
    {
        $persistence = $this->persistence();
        $tally = $this->kit->spawn(self::tally($persistence, 't|gap')->behavior());
        for ($i = 1; $i <= 4; ++$i) {
            $this->ask($tally, $i);
        }
        $this->store->deleteEvents('t|gap', 2)->await();

        $errors = [];
        $this->kit->spawn(self::tally($persistence, 't|gap')->onSignal(static function (Signal $signal) use (&$errors): void {
            if ($signal instanceof RecoveryFailed) {
                $errors[] = $signal->error;
            }
        })->behavior());
        $this->kit->runUntilIdle();

        self::assertCount(1, $errors);
        self::assertInstanceOf(EventsMissingException::class, $errors[0]);
        self::assertStringContainsString('has no event 1', $errors[0]->getMessage());
    }

    private function persistence(?TypeRegistry $types = null): Persistence
    {
        $types ??= (new TypeRegistry())->register(Added::class, 'tally.added')->register(Tally::class, 'tally.state');

        return new Persistence($this->kit->system, $this->store, $types);
    }

    private static function tally(Persistence $persistence, string $id): EventSourcedBehavior
    {
        return $persistence->eventSourced(
            $id,
            new Tally(),
            static fn(Tally $state, int $amount, ActorContext $ctx): Effect => $amount === 0
                ? Effect::reply($state->total)
                : Effect::persist(new Added($amount))->thenReply(static fn(Tally $t): int => $t->total),
            static fn(Tally $state, Added $event): Tally => $state->add($event->amount),
        );
    }

    private function total(ActorRef $tally, int $add = 0): mixed
    {
        return $this->ask($tally, $add);
    }

    private function ask(ActorRef $ref, int $amount): mixed
    {
        return $ref->ask($amount, 3.0)->await();
    }
}
