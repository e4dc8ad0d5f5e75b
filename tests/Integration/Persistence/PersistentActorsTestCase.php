<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\Effect;
use Nexus\Persistence\EventSourcedBehavior;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Persistence\Store\SnapshotRecord;
use Nexus\Persistence\Store\Store;
use Nexus\Tests\Unit\Persistence\Fixture\Added;
use Nexus\Tests\Unit\Persistence\Fixture\Tally;
use PHPUnit\Framework\TestCase;

/**
 * Persistent actors on a real store, each test in fresh actor systems (as after a restart of the
 * process): recovery with snapshots, with an upcaster, with a snapshot that no longer decodes,
 * and two processes writing one id at once.
 */
abstract class PersistentActorsTestCase extends TestCase
{
    /** @var list<ActorSystem> */
    private array $systems = [];

    /**
     * A store (fresh for the test, the same data on every call within it) on $system's loop.
     */
    abstract protected function createStore(ActorSystem $system): Store;

    /**
     * How concurrent-writer.php reaches the same store: sqlite:PATH or a postgres:// URL.
     */
    abstract protected function storeSpec(): string;

    protected function tearDown(): void
    {
        foreach ($this->systems as $system) {
            if (!$system->isTerminated()) {
                $system->shutdown()->await(10.0);
            }
        }
    }

    public function testRecoveryFromSnapshotsAfterARestartOfTheProcess(): void
    {
        $persistence = $this->persistence();
        $tally = $persistence->system->spawn(self::tally($persistence, 'tally|snap')->behavior());
        for ($i = 1; $i <= 25; ++$i) {
            self::assertSame($i * ($i + 1) / 2, $tally->ask($i, 10.0)->await(15.0));
        }
        $persistence->system->shutdown()->await(10.0);
        $persistence->close()->await(10.0); // the last snapshot is written after the last reply

        $restarted = $this->persistence();
        $snapshot = $restarted->store->loadSnapshot('tally|snap')->await(10.0);
        self::assertInstanceOf(SnapshotRecord::class, $snapshot);
        self::assertSame(20, $snapshot->sequenceNr);
        self::assertSame([11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25], self::sequenceNrs($restarted->store->readEvents('tally|snap', 1, 100, 100)->await(10.0)), 'events before the oldest kept snapshot (10) were deleted');
        $again = $restarted->system->spawn(self::tally($restarted, 'tally|snap')->behavior());
        self::assertSame(325, $again->ask(0, 10.0)->await(15.0));
        self::assertSame(326, $again->ask(1, 10.0)->await(15.0));
    }

    public function testRecoveryWithAnUpcasterFromEventsStoredUnderAnOldNameAndVersion(): void
    {
        $persistence = $this->persistence();
        $old = [
            new Payload('ledger.credited', 1, PayloadFormat::Json, '{"value":5}'),
            new Payload('ledger.credited', 1, PayloadFormat::Json, '{"value":7}'),
            new Payload('tally.added', 2, PayloadFormat::Json, '{"amount":1,"note":"v2"}'),
        ];
        self::assertSame([null], $persistence->store->writeEvents([new AtomicWrite('tally|old', 1, 1, $old)])->await(10.0));

        $types = (new TypeRegistry())
            ->register(Added::class, 'tally.added', version: 2, aliases: ['ledger.credited'])
            ->register(Tally::class, 'tally.state')
            ->upcast('tally.added', 1, static fn(array $v1): array => ['amount' => $v1['value'], 'note' => 'from v1']);
        $current = $this->persistence($types);
        $tally = $current->system->spawn(self::tally($current, 'tally|old')->behavior());

        self::assertSame(13, $tally->ask(0, 10.0)->await(15.0));
        self::assertSame(14, $tally->ask(1, 10.0)->await(15.0));
        $latest = $current->store->readEvents('tally|old', 4, 4, 1)->await(10.0);
        self::assertSame(['tally.added', 2], [$latest[0]->name, $latest[0]->version], 'new events are written under the current name and version');
    }

    public function testRecoveryReplaysTheEventsWhenTheSnapshotNoLongerDecodes(): void
    {
        $persistence = $this->persistence();
        $tally = $persistence->system->spawn(self::tally($persistence, 'tally|undecodable', deleteEvents: false)->behavior());
        for ($i = 1; $i <= 12; ++$i) {
            $tally->ask(1, 10.0)->await(15.0);
        }
        $persistence->system->shutdown()->await(10.0);
        $persistence->close()->await(10.0);

        // The state class changed: version 2, no upcaster. The snapshot at 10 cannot be read.
        $types = (new TypeRegistry())->register(Added::class, 'tally.added')->register(Tally::class, 'tally.state', version: 2);
        $changed = $this->persistence($types);
        $again = $changed->system->spawn(self::tally($changed, 'tally|undecodable', deleteEvents: false)->behavior());

        self::assertSame(12, $again->ask(0, 10.0)->await(15.0));
        $logger = $changed->system->logger;
        self::assertInstanceOf(MemoryLogger::class, $logger);
        self::assertNotEmpty(array_filter($logger->messages('warning'), static fn(string $m): bool => str_contains($m, 'no longer decodes')));
    }

    public function testTwoActivationsInTwoProcessesWritingOneIdAtOnceNeverInterleave(): void
    {
        $this->persistence()->store->highestSequenceNr('warm-up')->await(10.0); // creates the tables
        $directory = TempDirectory::create('nexus-two-writers-');
        try {
            $processes = [];
            foreach (['a', 'b'] as $name) {
                $other = $name === 'a' ? 'b' : 'a';
                $processes[$name] = proc_open(
                    [\PHP_BINARY, __DIR__ . '/Fixture/concurrent-writer.php', $this->storeSpec(), 'ledger|contested', '60', "{$directory}/{$name}.ready", "{$directory}/{$other}.ready"],
                    [1 => ['file', "{$directory}/{$name}.out", 'w'], 2 => ['file', "{$directory}/{$name}.err", 'w']],
                    $pipes,
                );
                self::assertIsResource($processes[$name]);
            }
            $summaries = [];
            foreach ($processes as $name => $process) {
                $code = proc_close($process);
                self::assertSame(0, $code, "writer {$name} failed: " . file_get_contents("{$directory}/{$name}.err"));
                $summary = json_decode((string) file_get_contents("{$directory}/{$name}.out"), true);
                self::assertIsArray($summary);
                self::assertIsInt($summary['acknowledged'] ?? null);
                self::assertIsInt($summary['fenced'] ?? null);
                $summaries[$name] = ['acknowledged' => $summary['acknowledged'], 'fenced' => $summary['fenced']];
            }
        } finally {
            TempDirectory::remove($directory);
        }

        self::assertSame(120, $summaries['a']['acknowledged'] + $summaries['b']['acknowledged']);
        self::assertGreaterThanOrEqual(1, $summaries['a']['fenced'] + $summaries['b']['fenced'], 'both recovered at 0 before either wrote: one of them lost the first write');
        $events = $this->persistence()->store->readEvents('ledger|contested', 1, \PHP_INT_MAX, 1000)->await(10.0);
        self::assertSame(range(1, 120), self::sequenceNrs($events), 'one event per acknowledged command, no gap, no duplicate');
        $epochs = array_map(static fn(PersistedEvent $e): int => $e->writerEpoch, $events);
        $sorted = $epochs;
        sort($sorted);
        self::assertSame($sorted, $epochs, 'each activation wrote one unbroken run: a stale writer never wrote after a newer one');
    }

    protected function persistence(?TypeRegistry $types = null): Persistence
    {
        $system = new ActorSystem('persistent-actors', new MemoryLogger());
        $this->systems[] = $system;
        $types ??= (new TypeRegistry())->register(Added::class, 'tally.added')->register(Tally::class, 'tally.state');

        return new Persistence($system, $this->createStore($system), $types);
    }

    private static function tally(Persistence $persistence, string $id, bool $deleteEvents = true): EventSourcedBehavior
    {
        return $persistence->eventSourced(
            $id,
            new Tally(),
            static fn(Tally $state, int $amount, ActorContext $ctx): Effect => $amount === 0
                ? Effect::reply($state->total)
                : Effect::persist(new Added($amount))->thenReply(static fn(Tally $t): int => $t->total),
            static fn(Tally $state, Added $event): Tally => $state->add($event->amount),
        )->withSnapshots(every: 10, keep: 2, deleteEvents: $deleteEvents);
    }

    /**
     * @param list<PersistedEvent> $events
     *
     * @return list<int>
     */
    private static function sequenceNrs(array $events): array
    {
        return array_map(static fn(PersistedEvent $e): int => $e->sequenceNr, $events);
    }
}
