<?php

declare(strict_types=1);

namespace Nexus\Persistence\Internal;

use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\StoreOverloadedException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\PersistenceSettings;
use Nexus\Persistence\PersistenceStats;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\SnapshotRecord;
use Nexus\Persistence\Store\StateRecord;
use Nexus\Persistence\Store\Store;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * Group commit: every write the persistent actors of this process ask for during one loop turn
 * goes to the store in one transaction, at the end of that turn; each writer is told when that
 * transaction has committed (or failed). With a blocking store (SQLite), when more actors were
 * runnable than one turn runs, the transaction waits for them (up to 16 turns, or until it is
 * full), so that they join it. With an asynchronous store (PostgreSQL) up to
 * $transactionsInFlight transactions travel at once; the writes that arrive meanwhile wait and
 * go together in the next one, so batches grow with load.
 *
 * Order: journal writes first, then durable states, then snapshots. An actor has at most one
 * write pending, so transactions in flight together never hold two writes of one id.
 * Bounds: at most $maxPendingWrites writes wait (one more is refused at once with
 * StoreOverloadedException); one transaction holds at most $maxEventsPerTransaction events (a
 * larger single write goes alone).
 *
 * Recovery of an id waits for this process's writes of that id still pending (afterWritesOf()),
 * so that an actor restarted while its last write was in flight reads it back.
 *
 * @internal
 */
final class GroupCommit
{
    /** How many times a transaction waits for actors still queued to run before it goes anyway. */
    private const MAX_POSTPONE = 16;

    /** @var list<array{AtomicWrite, WriteListener}> */
    private array $events = [];
    /** @var list<array{StateRecord, WriteListener}> */
    private array $states = [];
    /** @var list<array{SnapshotRecord, int, (\Closure(int): void)|null}> */
    private array $snapshots = [];
    private bool $scheduled = false;
    /** Transactions sent and not settled yet. */
    private int $inFlight = 0;
    /** Whether the store answers before writeEvents() returns (SQLite); learnt from the first transaction. */
    private ?bool $synchronous = null;
    /** @var array<string, int> writes pending or in flight, by id */
    private array $busy = [];
    /** @var array<string, list<\Closure(): void>> */
    private array $waiters = [];
    /** @var list<\Closure(list<AtomicWrite>): void> */
    private array $committedListeners = [];
    private int $transactions = 0;
    /** Events in $events. */
    private int $queuedEvents = 0;
    private int $postponed = 0;
    /** @var list<\Closure(): void> */
    private array $idleWaiters = [];
    private readonly PersistenceStats $stats;
    /** hrtime() when the transaction being sent was started. */
    private int $started = 0;

    public function __construct(
        private readonly Loop $loop,
        private readonly Store $store,
        private readonly PersistenceSettings $settings,
        private readonly LoggerInterface $logger,
    ) {
        $this->stats = PersistenceStats::process();
    }

    /**
     * Queues events for the next transaction; null, or why they were refused at once.
     */
    public function append(AtomicWrite $write, WriteListener $listener): ?PersistenceException
    {
        if (\count($this->events) + \count($this->states) + \count($this->snapshots) >= $this->settings->maxPendingWrites) {
            return $this->overloaded();
        }
        $this->events[] = [$write, $listener];
        $this->queuedEvents += \count($write->events);
        $id = $write->persistenceId;
        $this->busy[$id] = ($this->busy[$id] ?? 0) + 1;
        if (!$this->scheduled) {
            $this->schedule();
        }

        return null;
    }

    /**
     * Queues a durable state for the next transaction; null, or why it was refused at once.
     */
    public function writeState(StateRecord $state, WriteListener $listener): ?PersistenceException
    {
        if ($this->pending() >= $this->settings->maxPendingWrites) {
            return $this->overloaded();
        }
        $this->states[] = [$state, $listener];
        $id = $state->persistenceId;
        $this->busy[$id] = ($this->busy[$id] ?? 0) + 1;
        $this->schedule();

        return null;
    }

    /**
     * Queues a snapshot; $saved(oldest kept sequence number) runs once it is stored. A snapshot
     * that cannot be stored is logged and dropped: the events are still there.
     *
     * @param (\Closure(int): void)|null $saved
     */
    public function saveSnapshot(SnapshotRecord $snapshot, int $keep, ?\Closure $saved = null): void
    {
        if ($this->pending() >= $this->settings->maxPendingWrites) {
            $this->logger->warning('A snapshot of {id} was dropped: the group commit queue is full.', ['id' => $snapshot->persistenceId]);

            return;
        }
        $this->snapshots[] = [$snapshot, $keep, $saved];
        $this->schedule();
    }

    /**
     * Runs $then once no write of $persistenceId is pending in this process (at once if none is).
     *
     * @param \Closure(): void $then
     */
    public function afterWritesOf(string $persistenceId, \Closure $then): void
    {
        if (!isset($this->busy[$persistenceId])) {
            $then();

            return;
        }
        $this->waiters[$persistenceId][] = $then;
    }

    /**
     * Calls $listener with the journal writes of every transaction that committed.
     *
     * @param \Closure(list<AtomicWrite>): void $listener
     */
    public function onCommitted(\Closure $listener): void
    {
        $this->committedListeners[] = $listener;
    }

    /**
     * Writes waiting for a transaction (not counting the one in flight).
     */
    public function pending(): int
    {
        return \count($this->events) + \count($this->states) + \count($this->snapshots);
    }

    /**
     * Transactions sent to the store so far.
     */
    public function transactions(): int
    {
        return $this->transactions;
    }

    public function isIdle(): bool
    {
        return $this->inFlight === 0 && $this->pending() === 0;
    }

    /**
     * Runs $then once nothing is pending or in flight.
     *
     * @param \Closure(): void $then
     */
    public function whenIdle(\Closure $then): void
    {
        if ($this->isIdle()) {
            $then();

            return;
        }
        $this->idleWaiters[] = $then;
    }

    private function schedule(): void
    {
        if (!$this->scheduled && $this->inFlight < $this->settings->transactionsInFlight) {
            $this->scheduled = true;
            $this->loop->defer($this->flush(...));
        }
    }

    private function flush(): void
    {
        $this->scheduled = false;
        if ($this->inFlight >= $this->settings->transactionsInFlight) {
            return;
        }
        // A blocking store (SQLite) stalls the loop for the whole transaction: while actors are
        // still queued to run (more than one scheduler budget was runnable this turn), let them
        // add to the batch first, unless it is full or has waited long enough. An asynchronous
        // store gets each batch at once: the next one travels while the actors work.
        if ($this->synchronous !== false && $this->postponed < self::MAX_POSTPONE && $this->loop->scheduler()->hasWork() && $this->queuedEvents < $this->settings->maxEventsPerTransaction) {
            ++$this->postponed;
            $this->scheduled = true;
            $this->loop->defer($this->flush(...));

            return;
        }
        $this->postponed = 0;
        $this->started = hrtime(true); // before the store's call: a blocking store answers inside it
        if ($this->events !== []) {
            $this->flushEvents();
        } elseif ($this->states !== []) {
            $this->flushStates();
        } elseif ($this->snapshots !== []) {
            $this->flushSnapshots();
        }
    }

    private function flushEvents(): void
    {
        $limit = $this->settings->maxEventsPerTransaction;
        if ($this->queuedEvents <= $limit) {
            // The usual batch: everything queued fits in one transaction.
            $taken = $this->events;
            $this->events = [];
            $this->queuedEvents = 0;
        } else {
            $taken = [];
            $events = 0;
            foreach ($this->events as $i => $entry) {
                $count = \count($entry[0]->events);
                if ($i > 0 && $events + $count > $limit) {
                    break;
                }
                $taken[] = $entry;
                $events += $count;
            }
            $this->events = \array_slice($this->events, \count($taken));
            $this->queuedEvents -= $events;
        }
        /** @var list<AtomicWrite> $writes */
        $writes = array_column($taken, 0);
        $this->send($this->store->writeEvents($writes), function (?\Throwable $error, mixed $results) use ($taken, $writes): void {
            $failure = $error === null ? null : self::unavailable($error);
            $results = \is_array($results) ? $results : [];
            foreach ($taken as $i => [$write, $listener]) {
                $result = $failure ?? $results[$i] ?? null;
                if ($result instanceof PersistenceException) {
                    ++$this->stats->failedWrites;
                } else {
                    $this->stats->events += \count($write->events);
                }
                try {
                    $listener->writeDone($result instanceof PersistenceException ? $result : null);
                } catch (\Throwable $e) {
                    $this->loop->reportError($e);
                }
                $id = $write->persistenceId;
                if (--$this->busy[$id] === 0) {
                    unset($this->busy[$id]);
                    if (isset($this->waiters[$id])) {
                        $this->done($id);
                    }
                }
            }
            if ($failure === null) {
                foreach ($this->committedListeners as $listener) {
                    $listener($writes);
                }
            }
        });
    }

    private function flushStates(): void
    {
        $taken = \array_slice($this->states, 0, $this->settings->maxEventsPerTransaction);
        $this->states = \array_slice($this->states, \count($taken));
        $records = array_map(static fn(array $entry): StateRecord => $entry[0], $taken);
        $this->send($this->store->writeStates($records), function (?\Throwable $error, mixed $results) use ($taken): void {
            $failure = $error === null ? null : self::unavailable($error);
            $results = \is_array($results) ? $results : [];
            foreach ($taken as $i => [$state, $listener]) {
                $result = $failure ?? $results[$i] ?? null;
                if ($result instanceof PersistenceException) {
                    ++$this->stats->failedWrites;
                } else {
                    ++$this->stats->states;
                }
                $this->tell($listener, $result instanceof PersistenceException ? $result : null);
                $id = $state->persistenceId;
                if (--$this->busy[$id] === 0) {
                    $this->done($id);
                }
            }
        });
    }

    private function flushSnapshots(): void
    {
        // One transaction keeps one number of snapshots: those asking for another go next.
        $keep = $this->snapshots[0][1];
        $taken = [];
        foreach ($this->snapshots as $entry) {
            if ($entry[1] !== $keep || \count($taken) >= $this->settings->maxEventsPerTransaction) {
                break;
            }
            $taken[] = $entry;
        }
        $this->snapshots = \array_slice($this->snapshots, \count($taken));
        $records = array_map(static fn(array $entry): SnapshotRecord => $entry[0], $taken);
        $this->send($this->store->saveSnapshots($records, $keep), function (?\Throwable $error, mixed $oldest) use ($taken): void {
            if ($error !== null) {
                $this->logger->warning('{count} snapshots were not stored: {error}', ['count' => \count($taken), 'error' => $error->getMessage()]);

                return;
            }
            foreach ($taken as $i => [, , $saved]) {
                if ($saved !== null && \is_array($oldest) && \is_int($oldest[$i] ?? null)) {
                    try {
                        $saved($oldest[$i]);
                    } catch (\Throwable $e) {
                        $this->loop->reportError($e);
                    }
                }
            }
        });
    }

    /**
     * @param Future<mixed>                          $transaction
     * @param \Closure(?\Throwable, mixed): void $complete
     */
    private function send(Future $transaction, \Closure $complete): void
    {
        ++$this->inFlight;
        ++$this->transactions;
        $this->synchronous ??= $transaction->isSettled();
        $start = $this->started;
        $transaction->onSettle(function (?\Throwable $error, mixed $result) use ($complete, $start): void {
            --$this->inFlight;
            $this->stats->writeDurations->observe((hrtime(true) - $start) / 1e9);
            try {
                $complete($error, $result);
            } finally {
                if ($this->pending() > 0) {
                    // The next transaction starts on the next loop turn: the actors told now get
                    // to run first (and may add to it), and a blocking store never recurses.
                    $this->schedule();
                } elseif ($this->idleWaiters !== []) {
                    $waiters = $this->idleWaiters;
                    $this->idleWaiters = [];
                    foreach ($waiters as $waiter) {
                        $waiter();
                    }
                }
            }
        });
    }

    private function tell(WriteListener $listener, ?PersistenceException $result): void
    {
        try {
            $listener->writeDone($result);
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
        }
    }

    /**
     * The last pending write of $persistenceId is done: wake the recoveries waiting for it.
     */
    private function done(string $persistenceId): void
    {
        unset($this->busy[$persistenceId]);
        $waiters = $this->waiters[$persistenceId] ?? [];
        unset($this->waiters[$persistenceId]);
        foreach ($waiters as $waiter) {
            try {
                $waiter();
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
    }

    private function overloaded(): StoreOverloadedException
    {
        return new StoreOverloadedException(sprintf(
            '%d writes are already waiting for the store (PersistenceSettings::$maxPendingWrites); this one was refused. Retry later, or find out why the store is slow.',
            $this->settings->maxPendingWrites,
        ));
    }

    private static function unavailable(\Throwable $error): PersistenceException
    {
        return $error instanceof PersistenceException ? $error : new StoreUnavailableException('The store failed: ' . $error->getMessage(), 0, $error);
    }
}
