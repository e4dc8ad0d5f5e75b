<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\PayloadEncodingException;
use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\JournalHead;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Persistence\Store\SnapshotRecord;
use Nexus\Persistence\Store\StateRecord;
use Nexus\Persistence\Store\Store;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use PHPUnit\Framework\TestCase;

/**
 * The store contract, checked the same way on every store: each store's test extends this case
 * and says how to open a fresh, empty store. What passes here is what the persistent actors rely
 * on (see docs/persistence.md).
 */
abstract class StoreConformanceTestCase extends TestCase
{
    protected Loop $loop;
    protected Store $store;

    /**
     * A fresh, empty store on $this->loop.
     */
    abstract protected function createStore(): Store;

    /**
     * Writes $value under $key inside a projection's transaction ($transaction is what the store
     * hands to OffsetStore::commitOffset()'s work).
     */
    abstract protected function projectionWrite(mixed $transaction, string $key, string $value): void;

    /**
     * What projectionWrite() stored under $key, read outside any transaction; null when nothing.
     */
    abstract protected function projectionRead(string $key): ?string;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->store = $this->createStore();
    }

    protected function tearDown(): void
    {
        $this->store->close();
    }

    public function testEventsAreReadBackInOrderWithEverythingTheyWereWrittenWith(): void
    {
        $write = new AtomicWrite('cart|1', 1, 7, [
            self::payload('cart.item-added', '{"sku":"A-1","name":"Käse \u00e9","qty":2}'),
            new Payload('cart.checked-out', 3, PayloadFormat::Php, base64_encode("O:8:\"stdClass\":0:{}\x01")),
        ], [['cart', 'eu'], []]);
        self::assertSame([null], $this->await($this->store->writeEvents([$write])));

        $events = $this->await($this->store->readEvents('cart|1', 1, \PHP_INT_MAX, 100));
        self::assertCount(2, $events);
        [$first, $second] = $events;
        self::assertSame(['cart|1', 1, 7, 'cart.item-added', 1, PayloadFormat::Json, '{"sku":"A-1","name":"Käse \u00e9","qty":2}', ['cart', 'eu']], [
            $first->persistenceId, $first->sequenceNr, $first->writerEpoch, $first->name, $first->version, $first->format, $first->data, $first->tags,
        ]);
        self::assertSame([2, 'cart.checked-out', 3, PayloadFormat::Php, base64_encode("O:8:\"stdClass\":0:{}\x01"), []], [
            $second->sequenceNr, $second->name, $second->version, $second->format, $second->data, $second->tags,
        ]);
        self::assertGreaterThan($first->offset, $second->offset);
        self::assertEqualsWithDelta(microtime(true) * 1000, $first->writtenAt, 60_000, 'written_at is wall-clock milliseconds');
    }

    public function testReadsHonourTheRangeAndTheLimit(): void
    {
        $this->append('a', 1, 10);

        self::assertSame([3, 4, 5], self::sequenceNrs($this->await($this->store->readEvents('a', 3, 5, 100))));
        self::assertSame([4, 5, 6], self::sequenceNrs($this->await($this->store->readEvents('a', 4, \PHP_INT_MAX, 3))));
        self::assertSame([], $this->await($this->store->readEvents('a', 11, \PHP_INT_MAX, 3)));
        self::assertSame([], $this->await($this->store->readEvents('unknown', 1, \PHP_INT_MAX, 3)));
    }

    public function testTheHighestSequenceNrAndItsEpochAreKnown(): void
    {
        self::assertEquals(new JournalHead(0, 0), $this->await($this->store->highestSequenceNr('a')));
        $this->append('a', 1, 3, epoch: 4);

        self::assertEquals(new JournalHead(3, 4), $this->await($this->store->highestSequenceNr('a')));
        self::assertEquals(new JournalHead(0, 0), $this->await($this->store->highestSequenceNr('b')));
    }

    public function testAWriteWhoseSequenceNrIsTakenIsRefusedAndTheRestOfTheBatchIsStored(): void
    {
        $this->append('b', 1, 2);

        $results = $this->await($this->store->writeEvents([
            new AtomicWrite('a', 1, 1, [self::payload('e', '1')]),
            new AtomicWrite('b', 2, 1, [self::payload('e', 'late'), self::payload('e', 'late too')]),
            new AtomicWrite('c', 1, 1, [self::payload('e', '1')]),
        ]));

        self::assertNull($results[0]);
        self::assertInstanceOf(ConcurrentWriteException::class, $results[1]);
        self::assertStringContainsString('another writer got there first', $results[1]->getMessage());
        self::assertNull($results[2]);
        self::assertSame(['1', '2'], self::data($this->await($this->store->readEvents('b', 1, \PHP_INT_MAX, 10))), 'nothing of the refused write was stored');
        self::assertCount(1, $this->await($this->store->readEvents('a', 1, \PHP_INT_MAX, 10)));
        self::assertCount(1, $this->await($this->store->readEvents('c', 1, \PHP_INT_MAX, 10)));
    }

    public function testAWriteAheadOfTheHistoryIsRefused(): void
    {
        $this->append('a', 1, 2);

        $results = $this->await($this->store->writeEvents([new AtomicWrite('a', 5, 1, [self::payload('e', 'x')])]));
        self::assertInstanceOf(ConcurrentWriteException::class, $results[0]);
        $results = $this->await($this->store->writeEvents([new AtomicWrite('new', 2, 1, [self::payload('e', 'x')])]));
        self::assertInstanceOf(ConcurrentWriteException::class, $results[0]);
        self::assertEquals(new JournalHead(2, 1), $this->await($this->store->highestSequenceNr('a')));
        self::assertEquals(new JournalHead(0, 0), $this->await($this->store->highestSequenceNr('new')));
    }

    public function testAWriterWithAnOlderEpochThanTheLastWriterIsRefused(): void
    {
        $this->append('a', 1, 2, epoch: 5);

        $stale = $this->await($this->store->writeEvents([new AtomicWrite('a', 3, 4, [self::payload('e', 'stale')])]));
        self::assertInstanceOf(ConcurrentWriteException::class, $stale[0]);
        self::assertStringContainsString('newer writer (epoch 5)', $stale[0]->getMessage());
        self::assertSame([null], $this->await($this->store->writeEvents([new AtomicWrite('a', 3, 5, [self::payload('e', 'same')])])));
        self::assertSame([null], $this->await($this->store->writeEvents([new AtomicWrite('a', 4, 6, [self::payload('e', 'newer')])])));
        self::assertEquals(new JournalHead(4, 6), $this->await($this->store->highestSequenceNr('a')));
    }

    public function testWritesOfOneIdInOneBatchFollowEachOther(): void
    {
        $results = $this->await($this->store->writeEvents([
            new AtomicWrite('a', 1, 1, [self::payload('e', '1'), self::payload('e', '2')]),
            new AtomicWrite('a', 3, 1, [self::payload('e', '3')]),
            new AtomicWrite('a', 3, 1, [self::payload('e', 'again')]),
        ]));

        self::assertNull($results[0]);
        self::assertNull($results[1]);
        self::assertInstanceOf(ConcurrentWriteException::class, $results[2]);
        self::assertSame(['1', '2', '3'], self::data($this->await($this->store->readEvents('a', 1, \PHP_INT_MAX, 10))));
    }

    public function testAValueWithANulByteIsRefusedAloneAndTheOthersAreStored(): void
    {
        $results = $this->await($this->store->writeEvents([
            new AtomicWrite('a', 1, 1, [self::payload('e', "{\"x\":\"a\0b\"}")]),
            new AtomicWrite('b', 1, 1, [self::payload('e', '1')], [['tag' . "\0"]]),
            new AtomicWrite('c', 1, 1, [self::payload('e', '1')]),
        ]));

        self::assertInstanceOf(PayloadEncodingException::class, $results[0]);
        self::assertInstanceOf(PayloadEncodingException::class, $results[1]);
        self::assertNull($results[2]);
        self::assertSame([], $this->await($this->store->readEvents('a', 1, \PHP_INT_MAX, 10)));
    }

    public function testOffsetsFollowTheCommitOrderAcrossIds(): void
    {
        $this->append('a', 1, 2);
        $this->append('b', 1, 1);
        $this->append('a', 3, 1);

        $offsets = [];
        foreach (['a', 'b'] as $id) {
            foreach ($this->await($this->store->readEvents($id, 1, \PHP_INT_MAX, 10)) as $event) {
                $offsets["{$id}{$event->sequenceNr}"] = $event->offset;
            }
        }
        self::assertLessThan($offsets['a2'], $offsets['a1']);
        self::assertLessThan($offsets['b1'], $offsets['a2']);
        self::assertLessThan($offsets['a3'], $offsets['b1']);
    }

    public function testEventsAreFoundByTagInCommitOrderFromAnOffset(): void
    {
        $this->await($this->store->writeEvents([
            new AtomicWrite('a', 1, 1, [self::payload('e', 'a1'), self::payload('e', 'a2')], [['red'], ['blue']]),
            new AtomicWrite('b', 1, 1, [self::payload('e', 'b1')], [['red', 'blue']]),
        ]));
        $this->await($this->store->writeEvents([new AtomicWrite('a', 3, 1, [self::payload('e', 'a3')], [['red']])]));

        $red = $this->await($this->store->readEventsByTag('red', 0, 100));
        self::assertSame(['a1', 'b1', 'a3'], self::data($red));
        self::assertSame(['b1', 'a3'], self::data($this->await($this->store->readEventsByTag('red', $red[0]->offset, 100))));
        self::assertSame(['a1', 'b1'], self::data($this->await($this->store->readEventsByTag('red', 0, 2))));
        self::assertSame(['a2', 'b1'], self::data($this->await($this->store->readEventsByTag('blue', 0, 100))));
        self::assertSame([], $this->await($this->store->readEventsByTag('green', 0, 100)));
    }

    public function testDeletedEventsAreGoneButTheirSequenceNrsAreNeverReused(): void
    {
        $this->append('a', 1, 5, tags: ['t']);

        $this->await($this->store->deleteEvents('a', 3));
        self::assertSame([4, 5], self::sequenceNrs($this->await($this->store->readEvents('a', 1, \PHP_INT_MAX, 10))));
        self::assertSame(['4', '5'], self::data($this->await($this->store->readEventsByTag('t', 0, 10))));

        $this->await($this->store->deleteEvents('a', 5));
        self::assertSame([], $this->await($this->store->readEvents('a', 1, \PHP_INT_MAX, 10)));
        self::assertSame([], $this->await($this->store->readEventsByTag('t', 0, 10)));
        self::assertSame(5, $this->await($this->store->highestSequenceNr('a'))->sequenceNr);
        $again = $this->await($this->store->writeEvents([new AtomicWrite('a', 1, 1, [self::payload('e', 'again')])]));
        self::assertInstanceOf(ConcurrentWriteException::class, $again[0]);
        self::assertSame([null], $this->await($this->store->writeEvents([new AtomicWrite('a', 6, 1, [self::payload('e', '6')])])));
        self::assertSame([6], self::sequenceNrs($this->await($this->store->readEvents('a', 1, \PHP_INT_MAX, 10))));
    }

    public function testAThousandWritesInOneBatchAreAllStored(): void
    {
        $writes = [];
        for ($i = 0; $i < 1000; ++$i) {
            $writes[] = new AtomicWrite("id-{$i}", 1, 1, [self::payload('e', (string) $i), self::payload('e', 'second')], [['bulk'], []]);
        }

        $results = $this->await($this->store->writeEvents($writes));

        self::assertSame(array_fill(0, 1000, null), $results);
        self::assertCount(1000, $this->await($this->store->readEventsByTag('bulk', 0, 5000)));
        self::assertEquals(new JournalHead(2, 1), $this->await($this->store->highestSequenceNr('id-999')));
    }

    public function testTheLatestSnapshotIsLoadedAndOnlyTheLatestOnesAreKept(): void
    {
        self::assertNull($this->await($this->store->loadSnapshot('a')));
        $oldest = $this->await($this->store->saveSnapshots([self::snapshot('a', 10), self::snapshot('b', 3)], 2));
        self::assertSame([10, 3], $oldest);
        $this->await($this->store->saveSnapshots([self::snapshot('a', 20)], 2));
        self::assertSame([20], $this->await($this->store->saveSnapshots([self::snapshot('a', 30)], 2)));

        $latest = $this->await($this->store->loadSnapshot('a'));
        self::assertInstanceOf(SnapshotRecord::class, $latest);
        self::assertSame(['a', 30, 'state.v', 2, PayloadFormat::Json, '{"at":30}'], [
            $latest->persistenceId, $latest->sequenceNr, $latest->state->name, $latest->state->version, $latest->state->format, $latest->state->data,
        ]);
        self::assertGreaterThan(0, $latest->writtenAt);
        self::assertSame(20, $this->await($this->store->loadSnapshot('a', 29))?->sequenceNr);
        self::assertNull($this->await($this->store->loadSnapshot('a', 19)), 'the snapshot at 10 was pruned (keep 2)');
        self::assertSame(3, $this->await($this->store->loadSnapshot('b'))?->sequenceNr);
    }

    public function testASnapshotAtTheSameSequenceNrReplacesTheOldOneAndDeletionWorksUpToANumber(): void
    {
        $this->await($this->store->saveSnapshots([self::snapshot('a', 5)], 3));
        $this->await($this->store->saveSnapshots([new SnapshotRecord('a', 5, self::payload('state.v', '{"replaced":true}'))], 3));
        $this->await($this->store->saveSnapshots([self::snapshot('a', 9)], 3));

        self::assertSame('{"replaced":true}', $this->await($this->store->loadSnapshot('a', 8))?->state->data);
        $this->await($this->store->deleteSnapshots('a', 5));
        self::assertNull($this->await($this->store->loadSnapshot('a', 8)));
        self::assertSame(9, $this->await($this->store->loadSnapshot('a'))?->sequenceNr);
    }

    public function testDurableStateIsWrittenOnlyOverTheRevisionItExpects(): void
    {
        self::assertNull($this->await($this->store->loadState('s')));
        self::assertSame([null, null], $this->await($this->store->writeStates([self::state('s', 1, '{"n":1}'), self::state('t', 1, '{"n":1}')])));
        self::assertSame([null], $this->await($this->store->writeStates([self::state('s', 2, '{"n":2}')])));

        $results = $this->await($this->store->writeStates([
            self::state('s', 2, '{"n":"stale"}'),
            self::state('t', 3, '{"n":"ahead"}'),
            self::state('u', 2, '{"n":"no base"}'),
            self::state('t', 2, '{"n":2}'),
        ]));
        self::assertInstanceOf(ConcurrentWriteException::class, $results[0]);
        self::assertInstanceOf(ConcurrentWriteException::class, $results[1]);
        self::assertInstanceOf(ConcurrentWriteException::class, $results[2]);
        self::assertNull($results[3]);

        $state = $this->await($this->store->loadState('s'));
        self::assertInstanceOf(StateRecord::class, $state);
        self::assertSame([2, 'state.v', '{"n":2}'], [$state->revision, $state->state->name, $state->state->data]);
        self::assertGreaterThan(0, $state->writtenAt);
        self::assertSame(2, $this->await($this->store->loadState('t'))?->revision);
        self::assertNull($this->await($this->store->loadState('u')));

        $this->await($this->store->deleteState('s'));
        self::assertNull($this->await($this->store->loadState('s')));
        self::assertSame([null], $this->await($this->store->writeStates([self::state('s', 1, '{"n":"fresh"}')])));
    }

    public function testAProjectionOffsetIsStoredWithTheProjectionsWritesOrNotAtAll(): void
    {
        self::assertSame(0, $this->await($this->store->loadOffset('totals')));

        $result = $this->await($this->store->commitOffset('totals', 42, function (mixed $transaction): string {
            $this->projectionWrite($transaction, 'k1', 'v1');

            return 'done';
        }));
        self::assertSame('done', $result);
        self::assertSame(42, $this->await($this->store->loadOffset('totals')));
        self::assertSame('v1', $this->projectionRead('k1'));

        try {
            $this->await($this->store->commitOffset('totals', 50, function (mixed $transaction): void {
                $this->projectionWrite($transaction, 'k2', 'v2');
                self::failingWork();
            }));
            self::fail('The failure of the work reaches the caller.');
        } catch (\DomainException $e) {
            self::assertSame('the projection handler failed', $e->getMessage());
        }
        self::assertSame(42, $this->await($this->store->loadOffset('totals')), 'the offset did not move');
        if ($this->storeIsTransactional()) {
            self::assertNull($this->projectionRead('k2'), 'the write of the failed work was rolled back');
        }
        self::assertSame(0, $this->await($this->store->loadOffset('other')));
    }

    public function testAClosedStoreFailsWithStoreUnavailable(): void
    {
        $this->store->close();

        foreach ([
            fn(): Future => $this->store->writeEvents([new AtomicWrite('a', 1, 1, [self::payload('e', '1')])]),
            fn(): Future => $this->store->readEvents('a', 1, 10, 10),
            fn(): Future => $this->store->loadState('a'),
            fn(): Future => $this->store->loadSnapshot('a'),
        ] as $operation) {
            try {
                $this->await($operation());
                self::fail('A closed store must refuse every operation.');
            } catch (StoreUnavailableException $e) {
                self::assertNotSame('', $e->getMessage());
            }
        }
    }

    private static function failingWork(): void
    {
        throw new \DomainException('the projection handler failed');
    }

    /**
     * Whether a failed projection's own writes are rolled back (not for the in-memory store,
     * whose "transaction" is plain PHP code).
     */
    protected function storeIsTransactional(): bool
    {
        return true;
    }

    /**
     * @template T
     *
     * @param Future<T> $future
     *
     * @return T
     */
    protected function await(Future $future): mixed
    {
        return $future->await(20.0);
    }

    /**
     * @param list<string> $tags
     */
    protected function append(string $id, int $from, int $count, int $epoch = 1, array $tags = []): void
    {
        $events = [];
        $eventTags = [];
        for ($i = 0; $i < $count; ++$i) {
            $events[] = self::payload('e', (string) ($from + $i));
            $eventTags[] = $tags;
        }
        $results = $this->await($this->store->writeEvents([new AtomicWrite($id, $from, $epoch, $events, $tags === [] ? [] : $eventTags)]));
        self::assertSame([null], $results, 'the setup write was refused: ' . implode(', ', array_map(static fn(?PersistenceException $e): string => $e?->getMessage() ?? 'ok', $results)));
    }

    protected static function payload(string $name, string $data): Payload
    {
        return new Payload($name, 1, PayloadFormat::Json, $data);
    }

    private static function snapshot(string $id, int $sequenceNr): SnapshotRecord
    {
        return new SnapshotRecord($id, $sequenceNr, new Payload('state.v', 2, PayloadFormat::Json, "{\"at\":{$sequenceNr}}"));
    }

    private static function state(string $id, int $revision, string $data): StateRecord
    {
        return new StateRecord($id, $revision, self::payload('state.v', $data));
    }

    /**
     * @param list<PersistedEvent> $events
     *
     * @return list<int>
     */
    protected static function sequenceNrs(array $events): array
    {
        return array_map(static fn(PersistedEvent $event): int => $event->sequenceNr, $events);
    }

    /**
     * @param list<PersistedEvent> $events
     *
     * @return list<string>
     */
    protected static function data(array $events): array
    {
        return array_map(static fn(PersistedEvent $event): string => $event->data, $events);
    }
}
