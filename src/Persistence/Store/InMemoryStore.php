<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * A store in this process's memory, for tests and the test kit: everything the contract promises
 * (conditional appends, commit-ordered offsets, atomic batches), nothing survives the process.
 * Every operation completes at once (writeEvents() waits while holdWrites() holds them). Each batch counts as one transaction (transactions()), and
 * makeUnavailable() makes every operation fail as a lost database would, until makeAvailable().
 *
 * Bounded only by memory: meant for tests, not for production data.
 */
final class InMemoryStore implements Store
{
    /** @var array<string, array<int, PersistedEvent>> by id, then sequence number */
    private array $events = [];
    /** @var array<string, JournalHead> */
    private array $heads = [];
    /** @var array<int, PersistedEvent> by offset */
    private array $byOffset = [];
    /** @var array<string, array<int, true>> offsets by tag */
    private array $tags = [];
    private int $lastOffset = 0;
    /** @var array<string, array<int, SnapshotRecord>> by id, then sequence number */
    private array $snapshots = [];
    /** @var array<string, StateRecord> */
    private array $states = [];
    /** @var array<string, int> */
    private array $offsets = [];
    private int $transactions = 0;
    private int $eventReads = 0;
    private ?string $unavailable = null;
    private bool $closed = false;
    private bool $holding = false;
    /** @var list<array{list<AtomicWrite>, Deferred<list<PersistenceException|null>>}> */
    private array $held = [];

    public function __construct(private readonly Loop $loop) {}

    /**
     * Makes every operation fail with a StoreUnavailableException saying $reason.
     */
    public function makeUnavailable(string $reason = 'the in-memory store was made unavailable'): void
    {
        $this->unavailable = $reason;
    }

    public function makeAvailable(): void
    {
        $this->unavailable = null;
    }

    /**
     * Leaves every writeEvents() from now on unsettled, as a database that has not answered yet,
     * until releaseWrites(): for tests of what happens while a write is in flight.
     */
    public function holdWrites(): void
    {
        $this->holding = true;
    }

    /**
     * Stores the held writes, in the order they came, settles their futures, and stops holding.
     */
    public function releaseWrites(): void
    {
        $this->holding = false;
        $held = $this->held;
        $this->held = [];
        foreach ($held as [$writes, $deferred]) {
            if ($this->closed || $this->unavailable !== null) {
                $deferred->reject(new StoreUnavailableException($this->unavailable ?? 'The in-memory store is closed.'));
            } else {
                $deferred->resolve($this->append($writes));
            }
        }
    }

    /**
     * How many write transactions (batches) were committed.
     */
    public function transactions(): int
    {
        return $this->transactions;
    }

    /**
     * How many readEvents() queries were answered (pages of a recovery, say).
     */
    public function eventReads(): int
    {
        return $this->eventReads;
    }

    public function writeEvents(array $writes): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        if ($this->holding) {
            /** @var Deferred<list<PersistenceException|null>> $deferred */
            $deferred = new Deferred($this->loop);
            $this->held[] = [$writes, $deferred];

            return $deferred->future();
        }

        return Future::fulfilled($this->loop, $this->append($writes));
    }

    /**
     * @param list<AtomicWrite> $writes
     *
     * @return list<PersistenceException|null>
     */
    private function append(array $writes): array
    {
        $results = [];
        $now = StoreSupport::now();
        foreach ($writes as $write) {
            $unstorable = StoreSupport::unstorable($write);
            if ($unstorable !== null) {
                $results[] = $unstorable;
                continue;
            }
            $head = $this->heads[$write->persistenceId] ?? null;
            $highest = $head->sequenceNr ?? 0;
            if ($write->firstSequenceNr !== $highest + 1 || ($head !== null && $write->writerEpoch < $head->writerEpoch)) {
                $results[] = StoreSupport::conflict($write, $highest, $head->writerEpoch ?? 0);
                continue;
            }
            foreach ($write->events as $i => $payload) {
                $tags = $write->tagsOf($i);
                $event = new PersistedEvent(
                    $write->persistenceId,
                    $write->firstSequenceNr + $i,
                    $write->writerEpoch,
                    ++$this->lastOffset,
                    $payload->name,
                    $payload->version,
                    $payload->format,
                    $payload->data,
                    $tags,
                    $now,
                );
                $this->events[$write->persistenceId][$event->sequenceNr] = $event;
                $this->byOffset[$event->offset] = $event;
                foreach ($tags as $tag) {
                    $this->tags[$tag][$event->offset] = true;
                }
            }
            $this->heads[$write->persistenceId] = new JournalHead($write->lastSequenceNr(), $write->writerEpoch);
            $results[] = null;
        }
        ++$this->transactions;

        return $results;
    }

    public function readEvents(string $persistenceId, int $fromSequenceNr, int $toSequenceNr, int $max): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        ++$this->eventReads;
        $found = [];
        $highest = $this->heads[$persistenceId]->sequenceNr ?? 0;
        $events = $this->events[$persistenceId] ?? [];
        for ($seq = max(1, $fromSequenceNr); $seq <= $toSequenceNr && $seq <= $highest && \count($found) < $max; ++$seq) {
            if (isset($events[$seq])) {
                $found[] = $events[$seq];
            }
        }

        return Future::fulfilled($this->loop, $found);
    }

    public function highestSequenceNr(string $persistenceId): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }

        return Future::fulfilled($this->loop, $this->heads[$persistenceId] ?? new JournalHead(0, 0));
    }

    public function deleteEvents(string $persistenceId, int $toSequenceNr): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        foreach ($this->events[$persistenceId] ?? [] as $seq => $event) {
            if ($seq <= $toSequenceNr) {
                unset($this->events[$persistenceId][$seq], $this->byOffset[$event->offset]);
                foreach ($event->tags as $tag) {
                    unset($this->tags[$tag][$event->offset]);
                }
            }
        }
        ++$this->transactions;

        return Future::fulfilled($this->loop, null);
    }

    public function readEventsByTag(string $tag, int $afterOffset, int $max): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        $found = [];
        foreach ($this->tags[$tag] ?? [] as $offset => $_) {
            if ($offset > $afterOffset) {
                $found[] = $this->byOffset[$offset];
                if (\count($found) >= $max) {
                    break;
                }
            }
        }

        return Future::fulfilled($this->loop, $found);
    }

    public function saveSnapshots(array $snapshots, int $keep): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        $now = StoreSupport::now();
        $oldest = [];
        foreach ($snapshots as $snapshot) {
            $id = $snapshot->persistenceId;
            $this->snapshots[$id][$snapshot->sequenceNr] = new SnapshotRecord($id, $snapshot->sequenceNr, $snapshot->state, $now);
            krsort($this->snapshots[$id]);
            $this->snapshots[$id] = \array_slice($this->snapshots[$id], 0, max(1, $keep), true);
            $oldest[] = (int) array_key_last($this->snapshots[$id]);
        }
        ++$this->transactions;

        return Future::fulfilled($this->loop, $oldest);
    }

    public function loadSnapshot(string $persistenceId, int $maxSequenceNr = \PHP_INT_MAX): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        foreach ($this->snapshots[$persistenceId] ?? [] as $seq => $snapshot) {
            if ($seq <= $maxSequenceNr) {
                return Future::fulfilled($this->loop, $snapshot); // newest first
            }
        }

        return Future::fulfilled($this->loop, null);
    }

    public function deleteSnapshots(string $persistenceId, int $maxSequenceNr): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        foreach ($this->snapshots[$persistenceId] ?? [] as $seq => $_) {
            if ($seq <= $maxSequenceNr) {
                unset($this->snapshots[$persistenceId][$seq]);
            }
        }
        ++$this->transactions;

        return Future::fulfilled($this->loop, null);
    }

    public function loadState(string $persistenceId): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }

        return Future::fulfilled($this->loop, $this->states[$persistenceId] ?? null);
    }

    public function writeStates(array $states): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        $now = StoreSupport::now();
        $results = [];
        foreach ($states as $state) {
            $unstorable = StoreSupport::unstorableState($state);
            if ($unstorable !== null) {
                $results[] = $unstorable;
                continue;
            }
            $current = $this->states[$state->persistenceId]->revision ?? 0;
            if ($state->revision !== $current + 1) {
                $results[] = StoreSupport::stateConflict($state, $current);
                continue;
            }
            $this->states[$state->persistenceId] = new StateRecord($state->persistenceId, $state->revision, $state->state, $now);
            $results[] = null;
        }
        ++$this->transactions;

        return Future::fulfilled($this->loop, $results);
    }

    public function deleteState(string $persistenceId): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        unset($this->states[$persistenceId]);
        ++$this->transactions;

        return Future::fulfilled($this->loop, null);
    }

    public function loadOffset(string $projection): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }

        return Future::fulfilled($this->loop, $this->offsets[$projection] ?? 0);
    }

    public function commitOffset(string $projection, int $offset, \Closure $work): Future
    {
        if (($failed = $this->check()) !== null) {
            return $failed;
        }
        try {
            $result = $work($this);
            if ($result instanceof Future) {
                $result = $result->await();
            }
        } catch (\Throwable $e) {
            return Future::rejected($this->loop, $e);
        }
        $this->offsets[$projection] = $offset;
        ++$this->transactions;

        return Future::fulfilled($this->loop, $result);
    }

    public function close(): void
    {
        $this->closed = true;
    }

    /**
     * @return Future<never>|null
     */
    private function check(): ?Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new StoreUnavailableException('The in-memory store is closed.'));
        }
        if ($this->unavailable !== null) {
            return Future::rejected($this->loop, new StoreUnavailableException($this->unavailable));
        }

        return null;
    }
}
