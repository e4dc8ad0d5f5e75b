<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Persistence;

use Nexus\Actor\ActorSystem;
use Nexus\Log\MemoryLogger;
use Nexus\Persistence\Persistence;
use Nexus\Persistence\Projection\Projection;
use Nexus\Persistence\Query\EventEnvelope;
use Nexus\Persistence\Serialization\TypeRegistry;
use Nexus\Persistence\Store\Store;
use Nexus\Tests\Unit\Persistence\Fixture\Added;
use Nexus\Tests\Unit\Persistence\Fixture\Ledger;
use PHPUnit\Framework\TestCase;

/**
 * The read side on a real store: a live query by tag sees every event that concurrent writers
 * in other processes commit, exactly once and in offset order, and a projection into the same
 * database applies each event exactly once although its handler fails now and then.
 */
abstract class ReadSideTestCase extends TestCase
{
    protected ActorSystem $system;
    protected Persistence $persistence;

    abstract protected function createStore(ActorSystem $system): Store;

    abstract protected function storeSpec(): string;

    /**
     * Adds $amount to the projected total of $id inside the projection's transaction.
     */
    abstract protected function project(mixed $transaction, string $id, int $amount): void;

    /**
     * @return array<string, int> the projected totals, read outside any transaction
     */
    abstract protected function projected(): array;

    protected function setUp(): void
    {
        $this->system = new ActorSystem('read-side', new MemoryLogger());
        $this->persistence = new Persistence($this->system, $this->createStore($this->system), (new TypeRegistry())->register(Added::class, 'ledger.added'));
    }

    protected function tearDown(): void
    {
        $this->system->shutdown()->await(10.0);
    }

    public function testALiveQuerySeesEveryEventOfConcurrentWritersInOtherProcessesOnceInCommitOrder(): void
    {
        $this->persistence->store->highestSequenceNr('warm-up')->await(10.0);
        $seen = [];
        $offsets = [];
        $query = $this->persistence->queries()->eventsByTag('load', 0, static function (array $page) use (&$seen, &$offsets): void {
            foreach ($page as $envelope) {
                $key = "{$envelope->persistenceId}#{$envelope->sequenceNr}";
                self::assertArrayNotHasKey($key, $seen, "{$key} was delivered twice");
                $seen[$key] = true;
                $offsets[] = $envelope->offset;
            }
        });
        $writers = [];
        $outputs = [];
        foreach (['w1', 'w2'] as $prefix) {
            $outputs[$prefix] = tempnam(sys_get_temp_dir(), 'nexus-writer-');
            $writers[$prefix] = proc_open(
                [\PHP_BINARY, __DIR__ . '/Fixture/tagged-writer.php', $this->storeSpec(), $prefix, '20', '15'],
                [1 => ['file', $outputs[$prefix], 'w'], 2 => ['file', $outputs[$prefix] . '.err', 'w']],
                $pipes,
            );
        }
        $acknowledged = 0;
        foreach ($writers as $prefix => $writer) {
            self::assertIsResource($writer);
            while (proc_get_status($writer)['running']) {
                $this->system->loop->tick();
            }
            proc_close($writer);
            $output = (string) file_get_contents($outputs[$prefix]);
            $errors = (string) @file_get_contents($outputs[$prefix] . '.err');
            @unlink($outputs[$prefix]);
            @unlink($outputs[$prefix] . '.err');
            self::assertSame('', $errors);
            self::assertSame("300\n", $output, "writer {$prefix}");
            $acknowledged += (int) $output;
        }
        self::assertSame(600, $acknowledged);

        $deadline = microtime(true) + 20.0;
        while (\count($seen) < 600 && microtime(true) < $deadline) {
            $this->system->loop->tick();
        }
        $query->cancel();

        $logger = $this->system->logger;
        \assert($logger instanceof MemoryLogger);
        self::assertCount(600, $seen, 'every committed event arrived; log: ' . implode("\n", array_column($logger->records, 'message')));
        $sorted = $offsets;
        sort($sorted);
        self::assertSame($sorted, $offsets, 'in offset order');
        self::assertSame(array_values(array_unique($offsets)), $offsets);
    }

    public function testAProjectionAppliesEachEventExactlyOnceAlthoughItsHandlerFails(): void
    {
        $ledgers = [];
        for ($i = 1; $i <= 3; ++$i) {
            $ledgers[$i] = $this->system->spawn(Ledger::behavior($this->persistence, "acct-{$i}")->withTagger(static fn(object $e): array => ['acct'])->behavior());
        }
        for ($round = 1; $round <= 10; ++$round) {
            foreach ($ledgers as $i => $ledger) {
                self::assertSame($round * $i, $ledger->ask(['add', $i], 10.0)->await(15.0));
            }
        }
        $thrown = 0;
        $projection = Projection::start($this->persistence, 'acct-totals', 'acct', function (EventEnvelope $envelope, mixed $transaction) use (&$thrown): void {
            $event = $envelope->event;
            \assert($event instanceof Added);
            $this->project($transaction, $envelope->persistenceId, $event->amount);
            if ($envelope->persistenceId === 'acct-1' && $envelope->sequenceNr === 7 && $thrown < 2) {
                ++$thrown;
                throw new \RuntimeException('the projection handler failed half-way through a page');
            }
        }, new \Nexus\Actor\Supervision\Backoff(0.01, 0.05));

        $deadline = microtime(true) + 20.0;
        while ($projection->offset() < $this->lastOffset('acct') && microtime(true) < $deadline) {
            $this->system->loop->tick();
        }
        self::assertSame(['acct-1' => 10, 'acct-2' => 20, 'acct-3' => 30], $this->projected());
        self::assertSame(2, $thrown);
        self::assertGreaterThan(0, $projection->pages());

        $projection->stop();
        self::assertSame(40, $ledgers[1]->ask(['add', 30], 10.0)->await(15.0));
        $again = Projection::start($this->persistence, 'acct-totals', 'acct', function (EventEnvelope $envelope, mixed $transaction): void {
            $event = $envelope->event;
            \assert($event instanceof Added);
            $this->project($transaction, $envelope->persistenceId, $event->amount);
        });
        $deadline = microtime(true) + 20.0;
        while ($again->offset() < $this->lastOffset('acct') && microtime(true) < $deadline) {
            $this->system->loop->tick();
        }
        $again->stop();
        self::assertSame(['acct-1' => 40, 'acct-2' => 20, 'acct-3' => 30], $this->projected(), 'resumed after its committed offset: nothing applied twice');
    }

    private function lastOffset(string $tag): int
    {
        $events = $this->persistence->store->readEventsByTag($tag, 0, 10_000)->await(10.0);

        return $events === [] ? 0 : $events[\count($events) - 1]->offset;
    }
}
