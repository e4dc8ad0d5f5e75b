<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\Exception\PayloadDecodingException;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Query\EventEnvelope;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\InMemoryStore;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Runtime\Deferred;
use Nexus\Tests\Support\RunsTheLoop;
use Nexus\Tests\Unit\Persistence\Fixture\Added;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;
use PHPUnit\Framework\TestCase;

final class EventQueriesTest extends TestCase
{
    use RunsTheLoop;

    private \Nexus\Runtime\Loop $loop;
    private ActorSystem $system;
    private InMemoryStore $store;
    private Persistence $persistence;

    protected function setUp(): void
    {
        $this->system = new ActorSystem('queries', new MemoryLogger());
        $this->loop = $this->system->loop;
        $this->store = new InMemoryStore($this->loop);
        $this->persistence = new Persistence($this->system, $this->store);
        Ledger::register($this->persistence);
    }

    public function testAQueryByTagDeliversWhatIsStoredThenWhatIsCommittedLaterInOrder(): void
    {
        $a = $this->ledger('q-a');
        $b = $this->ledger('q-b');
        $this->add($a, 1);
        $this->add($b, 2);
        $seen = [];
        $query = $this->persistence->queries()->eventsByTag('money', 0, static function (array $page) use (&$seen): void {
            foreach ($page as $envelope) {
                \assert($envelope->event instanceof Added);
                $seen[] = "{$envelope->persistenceId}:{$envelope->event->amount}";
            }
        });
        $this->runUntil(static function () use (&$seen): bool {
            return \count($seen) === 2;
        });
        $this->add($a, 3);
        $this->add($b, 4);
        $this->runUntil(static function () use (&$seen): bool {
            return \count($seen) === 4;
        });
        $query->cancel();

        self::assertSame(['q-a:1', 'q-b:2', 'q-a:3', 'q-b:4'], $seen);
        $current = $this->persistence->queries()->currentEventsByTag('money', 0, 3)->await();
        self::assertSame(['q-a', 'q-b', 'q-a'], array_map(static fn(EventEnvelope $e): string => $e->persistenceId, $current));
        self::assertSame([], $this->persistence->queries()->currentEventsByTag('money', $current[2]->offset + 1)->await());
        self::assertNull($query->done()->await(1.0));
        self::assertFalse($query->isRunning());
    }

    public function testAQueryByPersistenceIdStartsAtASequenceNumber(): void
    {
        $a = $this->ledger('q-seq');
        for ($i = 1; $i <= 4; ++$i) {
            $this->add($a, $i);
        }
        $seen = [];
        $query = $this->persistence->queries()->eventsByPersistenceId('q-seq', 3, static function (array $page) use (&$seen): void {
            foreach ($page as $envelope) {
                $seen[] = $envelope->sequenceNr;
            }
        });
        $this->runUntil(static function () use (&$seen): bool {
            return \count($seen) === 2;
        });
        $this->add($a, 5);
        $this->runUntil(static function () use (&$seen): bool {
            return \count($seen) === 3;
        });
        $query->cancel();

        self::assertSame([3, 4, 5], $seen);
        self::assertSame(5, $query->position());
    }

    public function testTheNextPageWaitsForTheConsumersFuture(): void
    {
        $persistence = new Persistence($this->system, $this->store);
        Ledger::register($persistence);
        $ledger = $this->ledger('q-slow', $persistence);
        for ($i = 1; $i <= 3; ++$i) {
            $this->add($ledger, $i);
        }
        $queries = new \Nexus\Persistence\Query\EventQueries($persistence, pageSize: 1);
        /** @var list<Deferred<null>> $holds */
        $holds = [];
        $loop = $this->loop;
        $query = $queries->eventsByTag('money', 0, static function (array $page) use (&$holds, $loop): \Nexus\Runtime\Future {
            /** @var Deferred<null> $hold */
            $hold = new Deferred($loop);
            $holds[] = $hold;

            return $hold->future();
        });

        $this->runUntil(static function () use (&$holds): bool {
            return \count($holds) === 1;
        });
        $this->runFor(0.05);
        self::assertCount(1, $holds, 'the second page waits for the first one to be done');
        $holds[0]->resolve(null);
        $this->runUntil(static function () use (&$holds): bool {
            return \count($holds) === 2;
        });
        $query->cancel();
    }

    public function testAnEventThatDoesNotDecodeEndsTheQueryRatherThanBeSkipped(): void
    {
        $this->store->writeEvents([new AtomicWrite('odd', 1, 1, [new Payload('no.such.event', 1, PayloadFormat::Json, '{}')], [['money']])])->await();

        $query = $this->persistence->queries()->eventsByTag('money', 0, static function (): void {
            self::fail('Nothing can be delivered.');
        });

        try {
            $query->done()->await(5.0);
            self::fail('The query must end with the decoding failure.');
        } catch (PayloadDecodingException $e) {
            self::assertStringContainsString('no.such.event', $e->getMessage());
        }
        self::assertFalse($query->isRunning());
    }

    public function testAQueryWaitsOutAStoreOutageAndGoesOnWithoutDuplicates(): void
    {
        $ledger = $this->ledger('q-out');
        $this->add($ledger, 1);
        $seen = [];
        $queries = new \Nexus\Persistence\Query\EventQueries($this->persistence, pollInterval: 0.01);
        $query = $queries->eventsByTag('money', 0, static function (array $page) use (&$seen): void {
            foreach ($page as $envelope) {
                $seen[] = $envelope->sequenceNr;
            }
        });
        $this->runUntil(static function () use (&$seen): bool {
            return $seen === [1];
        });

        $this->store->makeUnavailable('down for a moment');
        $this->runFor(0.05);
        $this->store->makeAvailable();
        $this->add($ledger, 2);
        $this->runUntil(static function () use (&$seen): bool {
            return \count($seen) === 2;
        });
        $query->cancel();

        self::assertSame([1, 2], $seen);
        $logger = $this->system->logger;
        \assert($logger instanceof MemoryLogger);
        self::assertCount(1, array_filter($logger->messages('warning'), static fn(string $m): bool => str_contains($m, 'cannot read (down for a moment)')), 'one warning per outage');
    }

    private function ledger(string $id, ?Persistence $persistence = null): ActorRef
    {
        return $this->system->spawn(Ledger::behavior($persistence ?? $this->persistence, $id)->withTagger(static fn(object $e): array => ['money'])->behavior());
    }

    private function add(ActorRef $ledger, int $amount): void
    {
        self::assertIsInt($ledger->ask(['add', $amount], 5.0)->await(5.0));
    }
}
