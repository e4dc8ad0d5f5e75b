<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Postgres;

use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\StoreOverloadedException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\JournalHead;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Persistence\Store\SnapshotRecord;
use Nexus\Persistence\Store\StateRecord;
use Nexus\Persistence\Store\Store;
use Nexus\Persistence\Store\StoreSupport;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\PgConfig;
use Nexus\Postgres\PgConnection;
use Nexus\Postgres\PgPool;
use Nexus\Postgres\PgResult;
use Nexus\Postgres\PgStatement;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The PostgreSQL store, on the project's asynchronous client: nothing here blocks the loop.
 *
 * Writes (events, states, snapshots, deletions) go through one connection of their own, one
 * transaction at a time, in the order they were asked for; a batch of events is three round
 * trips (BEGIN and the offset counter, the conditional insert of every write, COMMIT) whatever
 * its size. Reads use a small pool. The tables are created on first use (PostgresSchema).
 *
 * Every query has a timeout (PostgresOptions::$queryTimeout unless the PgConfig sets one). A lost
 * or timed-out connection fails what ran on it with StoreUnavailableException and is replaced on
 * the next use: a server that went away and came back needs no restart. A write whose COMMIT was
 * sent but not answered may or may not have been stored; it is reported as failed, so it was
 * never acknowledged.
 */
final class PostgresStore implements Store
{
    /** Reads (or writes) waiting for a connection beyond this many fail at once. */
    private const MAX_WAITING = 100_000;
    /** Event reads sent as one statement at most (and 20,000 events). */
    private const READS_PER_STATEMENT = 100;

    private readonly PgConfig $config;
    private readonly PgPool $pool;
    private readonly int $readConnections;
    /** @var array<int, PgConnection|null> the write connections by slot; null: not open (yet) */
    private array $writers = [];
    /** @var array<int, PgStatement> WRITE_EVENTS_AT_ONCE prepared on each open write connection */
    private array $prepared = [];
    /** @var list<int> write slots with no job */
    private array $freeWriters = [];
    /** @var \SplQueue<array{\Closure(PgConnection, int): mixed, Deferred<mixed>}> */
    private readonly \SplQueue $writeQueue;
    /** @var \SplQueue<array{string, array<mixed>, \Closure(PgResult): mixed, Deferred<mixed>}> */
    private readonly \SplQueue $readQueue;
    private int $readsInFlight = 0;
    /** Whether a dispatch of the reads is due at the end of this loop turn. */
    private bool $readsScheduled = false;
    private bool $schemaReady = false;
    private bool $creatingSchema = false;
    private bool $closed = false;

    public function __construct(
        private readonly Loop $loop,
        PgConfig $config,
        PostgresOptions $options = new PostgresOptions(),
    ) {
        $this->config = $config->queryTimeout === null ? $config->withQueryTimeout($options->queryTimeout) : $config;
        $this->pool = new PgPool($loop, $this->config, $options->readConnections, $options->queryTimeout, name: 'nexus-store');
        $this->readConnections = $options->readConnections;
        $this->writeQueue = new \SplQueue();
        $this->readQueue = new \SplQueue();
        for ($slot = 0; $slot < $options->writeConnections; ++$slot) {
            $this->writers[$slot] = null;
            $this->freeWriters[] = $slot;
        }
    }

    public function describe(): string
    {
        return PostgresUrl::redact($this->config);
    }

    public function writeEvents(array $writes): Future
    {
        $results = array_fill(0, \count($writes), null);
        $rounds = [];
        $events = 0;
        $seen = [];
        foreach ($writes as $i => $write) {
            $refused = StoreSupport::unstorable($write);
            if ($refused !== null) {
                $results[$i] = $refused;
                continue;
            }
            $round = $seen[$write->persistenceId] = ($seen[$write->persistenceId] ?? -1) + 1;
            $rounds[$round][$i] = $write;
            $events += \count($write->events);
        }
        if ($rounds === []) {
            return Future::fulfilled($this->loop, array_values($results));
        }
        $now = StoreSupport::now();
        $statements = [];
        $k = 0;
        foreach ($rounds as $round) {
            $statements[] = self::writeParameters($round, $k, $events, $now);
        }
        $slot = \count($statements) === 1 ? $this->idleWriter() : null;
        if ($slot === null) {
            return $this->write(function (PgConnection $connection, int $slot) use ($writes, $statements, $results, $events): array {
                if (\count($statements) === 1) {
                    try {
                        $this->refusals($this->prepared[$slot]->execute($statements[0]), $writes, $results);

                        return array_values($results);
                    } catch (PgQueryException $e) {
                        if ($e->sqlState !== '23505') {
                            throw $e;
                        }
                    }
                }

                return $this->writeHoldingTheLock($connection, $writes, $statements, $results, $events);
            });
        }
        // The common case, without a fiber or a loop turn in between: one statement on an open,
        // idle write connection.
        /** @var Deferred<list<PersistenceException|null>> $deferred */
        $deferred = new Deferred($this->loop);
        $this->prepared[$slot]->executeAsync($statements[0])->onSettle(function (?\Throwable $error, mixed $refused) use ($slot, $writes, $statements, $results, $events, $deferred): void {
            $this->freeWriters[] = $slot;
            if ($refused instanceof PgResult) {
                $this->refusals($refused, $writes, $results);
                $deferred->resolve(array_values($results));
            } elseif ($error instanceof PgQueryException && $error->sqlState === '23505') {
                // Another writer got to one of these ids meanwhile: again, holding the lock first.
                $this->write(fn(PgConnection $connection): array => $this->writeHoldingTheLock($connection, $writes, $statements, $results, $events))
                    ->onSettle(static function (?\Throwable $error, mixed $results) use ($deferred): void {
                        /** @var list<PersistenceException|null> $results */
                        $error === null ? $deferred->resolve($results) : $deferred->reject($error);
                    });
            } else {
                // Whatever else went wrong (a server that ends connections reports it as an error
                // of the statement too), the next write gets a fresh connection.
                $this->abandonWriter($slot);
                $deferred->reject($this->unavailable($error ?? new \RuntimeException('The statement gave no result.')));
            }
            $this->dispatchWrites();
        });

        return $deferred->future();
    }

    /**
     * The careful way: the offset lock first, then each round of the batch, in one transaction.
     *
     * @param list<AtomicWrite>                     $writes
     * @param list<list<int|string>>                $statements
     * @param array<int, PersistenceException|null> $results
     *
     * @return list<PersistenceException|null>
     */
    private function writeHoldingTheLock(PgConnection $connection, array $writes, array $statements, array $results, int $events): array
    {
        $connection->query("BEGIN; UPDATE nexus_journal_ordering SET last_offset = last_offset + {$events} WHERE id = 1");
        foreach ($statements as $parameters) {
            $this->refusals($connection->query(PostgresSchema::WRITE_EVENTS, $parameters), $writes, $results);
        }
        $connection->query('COMMIT');

        return array_values($results);
    }

    /**
     * A free write slot whose connection is open and idle, when no job waits and the tables
     * exist; null otherwise (the job then goes through write()).
     */
    private function idleWriter(): ?int
    {
        if (!$this->schemaReady || $this->closed || !$this->writeQueue->isEmpty()) {
            return null;
        }
        foreach ($this->freeWriters as $i => $slot) {
            $connection = $this->writers[$slot];
            if ($connection !== null && !$connection->isClosed() && $connection->isIdle() && isset($this->prepared[$slot])) {
                array_splice($this->freeWriters, $i, 1);

                return $slot;
            }
        }

        return null;
    }

    /**
     * The parameters of one round of WRITE_EVENTS: its writes, events and tags as arrays.
     *
     * @param array<int, AtomicWrite> $round by index in the batch
     *
     * @return list<int|string>
     */
    private static function writeParameters(array $round, int &$k, int $events, int $now): array
    {
        $w = [[], [], [], []];
        $e = [[], [], [], [], [], [], [], []];
        $t = [[], [], []];
        foreach ($round as $i => $write) {
            $w[0][] = $i;
            $w[1][] = $write->persistenceId;
            $w[2][] = $write->firstSequenceNr;
            $w[3][] = $write->writerEpoch;
            foreach ($write->events as $n => $payload) {
                $eventTags = $write->tags === [] ? [] : $write->tagsOf($n);
                $e[0][] = ++$k;
                $e[1][] = $i;
                $e[2][] = $write->firstSequenceNr + $n;
                $e[3][] = $payload->name;
                $e[4][] = $payload->version;
                $e[5][] = $payload->format->value;
                $e[6][] = $payload->data;
                $e[7][] = StoreSupport::encodeTags($eventTags);
                foreach ($eventTags as $tag) {
                    $t[0][] = $k;
                    $t[1][] = $i;
                    $t[2][] = $tag;
                }
            }
        }

        return [
            self::ints($w[0]), self::texts($w[1]), self::ints($w[2]), self::ints($w[3]),
            self::ints($e[0]), self::ints($e[1]), self::ints($e[2]), self::texts($e[3]), self::ints($e[4]), self::texts($e[5]), self::texts($e[6]), self::texts($e[7]),
            self::ints($t[0]), self::ints($t[1]), self::texts($t[2]),
            $events, $now,
        ];
    }

    /**
     * Puts a ConcurrentWriteException in the slot of each write the statement refused.
     *
     * @param list<AtomicWrite>                       $writes
     * @param array<int, PersistenceException|null>   $results
     */
    private function refusals(PgResult $refused, array $writes, array &$results): void
    {
        foreach ($refused as $row) {
            $i = self::int($row['i']);
            $results[$i] = StoreSupport::conflict($writes[$i], self::int($row['highest']), self::int($row['last_epoch']));
        }
    }

    /**
     * Reads that wait for a connection together are sent as one statement (READ_EVENTS): the
     * recoveries of many actors started in one turn cost a few round trips, not one each.
     */
    public function readEvents(string $persistenceId, int $fromSequenceNr, int $toSequenceNr, int $max): Future
    {
        return $this->read(PostgresSchema::READ_EVENTS, [$persistenceId, $fromSequenceNr, $toSequenceNr, max(0, $max)], self::events(...));
    }

    public function highestSequenceNr(string $persistenceId): Future
    {
        return $this->read(
            'SELECT sequence_nr, writer_epoch FROM nexus_journal WHERE persistence_id = $1 ORDER BY sequence_nr DESC LIMIT 1',
            [$persistenceId],
            static function (PgResult $result): JournalHead {
                $row = $result->first();

                return $row === null ? new JournalHead(0, 0) : new JournalHead(self::int($row['sequence_nr']), self::int($row['writer_epoch']));
            },
        );
    }

    public function deleteEvents(string $persistenceId, int $toSequenceNr): Future
    {
        return $this->write(static function (PgConnection $connection) use ($persistenceId, $toSequenceNr): null {
            $connection->query('BEGIN');
            $highest = self::int($connection->query('SELECT COALESCE(MAX(sequence_nr), 0) FROM nexus_journal WHERE persistence_id = $1', [$persistenceId])->scalar());
            $connection->query('DELETE FROM nexus_event_tags WHERE ordering IN (SELECT ordering FROM nexus_journal WHERE persistence_id = $1 AND sequence_nr <= $2)', [$persistenceId, min($toSequenceNr, $highest)]);
            $connection->query('DELETE FROM nexus_journal WHERE persistence_id = $1 AND sequence_nr <= $2', [$persistenceId, min($toSequenceNr, $highest - 1)]);
            if ($highest > 0 && $toSequenceNr >= $highest) {
                $connection->query("UPDATE nexus_journal SET deleted = TRUE, payload = '', tags = '' WHERE persistence_id = \$1 AND sequence_nr = \$2", [$persistenceId, $highest]);
            }
            $connection->query('COMMIT');

            return null;
        });
    }

    public function readEventsByTag(string $tag, int $afterOffset, int $max): Future
    {
        return $this->read(
            'SELECT j.ordering, j.persistence_id, j.sequence_nr, j.writer_epoch, j.event_name, j.event_version, j.payload_format, j.payload, j.tags, j.written_at FROM nexus_event_tags t JOIN nexus_journal j ON j.ordering = t.ordering WHERE t.tag = $1 AND t.ordering > $2 AND NOT j.deleted ORDER BY t.ordering LIMIT $3',
            [$tag, $afterOffset, $max],
            self::events(...),
        );
    }

    public function saveSnapshots(array $snapshots, int $keep): Future
    {
        return $this->write(static function (PgConnection $connection) use ($snapshots, $keep): array {
            $rounds = [];
            $seen = [];
            foreach ($snapshots as $snapshot) {
                $key = $snapshot->persistenceId . "\0" . $snapshot->sequenceNr;
                $round = $seen[$key] = ($seen[$key] ?? -1) + 1;
                $state = $snapshot->state;
                $rounds[$round][] = ['pid' => $snapshot->persistenceId, 'seq' => $snapshot->sequenceNr, 'name' => $state->name, 'ver' => $state->version, 'fmt' => $state->format->value, 'data' => $state->data];
            }
            $ids = array_values(array_unique(array_map(static fn(SnapshotRecord $s): string => $s->persistenceId, $snapshots)));
            $connection->query('BEGIN');
            $now = StoreSupport::now();
            foreach ($rounds as $round) {
                $connection->query(PostgresSchema::SAVE_SNAPSHOTS, [self::json($round), $now]);
            }
            $oldest = [];
            foreach ($connection->query(PostgresSchema::PRUNE_SNAPSHOTS, [self::json($ids), max(1, $keep) - 1]) as $row) {
                $oldest[self::string($row['pid'])] = self::int($row['oldest']);
            }
            $connection->query('COMMIT');

            return array_map(static fn(SnapshotRecord $s): int => $oldest[$s->persistenceId] ?? $s->sequenceNr, $snapshots);
        });
    }

    public function loadSnapshot(string $persistenceId, int $maxSequenceNr = \PHP_INT_MAX): Future
    {
        return $this->read(
            'SELECT sequence_nr, state_name, state_version, payload_format, payload, written_at FROM nexus_snapshots WHERE persistence_id = $1 AND sequence_nr <= $2 ORDER BY sequence_nr DESC LIMIT 1',
            [$persistenceId, $maxSequenceNr],
            static function (PgResult $result) use ($persistenceId): ?SnapshotRecord {
                $row = $result->first();

                return $row === null ? null : new SnapshotRecord($persistenceId, self::int($row['sequence_nr']), self::payload($row), self::int($row['written_at']));
            },
        );
    }

    public function deleteSnapshots(string $persistenceId, int $maxSequenceNr): Future
    {
        return $this->write(static function (PgConnection $connection) use ($persistenceId, $maxSequenceNr): null {
            $connection->query('DELETE FROM nexus_snapshots WHERE persistence_id = $1 AND sequence_nr <= $2', [$persistenceId, $maxSequenceNr]);

            return null;
        });
    }

    public function loadState(string $persistenceId): Future
    {
        return $this->read(
            'SELECT revision, state_name, state_version, payload_format, payload, written_at FROM nexus_durable_state WHERE persistence_id = $1',
            [$persistenceId],
            static function (PgResult $result) use ($persistenceId): ?StateRecord {
                $row = $result->first();

                return $row === null ? null : new StateRecord($persistenceId, self::int($row['revision']), self::payload($row), self::int($row['written_at']));
            },
        );
    }

    public function writeStates(array $states): Future
    {
        return $this->write(static function (PgConnection $connection) use ($states): array {
            $results = array_fill(0, \count($states), null);
            $rounds = [];
            $seen = [];
            foreach ($states as $i => $record) {
                $refused = StoreSupport::unstorableState($record);
                if ($refused !== null) {
                    $results[$i] = $refused;
                    continue;
                }
                $round = $seen[$record->persistenceId] = ($seen[$record->persistenceId] ?? -1) + 1;
                $state = $record->state;
                $rounds[$round][] = ['i' => $i, 'pid' => $record->persistenceId, 'rev' => $record->revision, 'name' => $state->name, 'ver' => $state->version, 'fmt' => $state->format->value, 'data' => $state->data];
            }
            if ($rounds === []) {
                return array_values($results);
            }
            $connection->query('BEGIN');
            $now = StoreSupport::now();
            foreach ($rounds as $round) {
                foreach ($connection->query(PostgresSchema::WRITE_STATES, [self::json($round), $now]) as $row) {
                    $i = self::int($row['i']);
                    $results[$i] = StoreSupport::stateConflict($states[$i], self::int($row['revision']));
                }
            }
            $connection->query('COMMIT');

            return array_values($results);
        });
    }

    public function deleteState(string $persistenceId): Future
    {
        return $this->write(static function (PgConnection $connection) use ($persistenceId): null {
            $connection->query('DELETE FROM nexus_durable_state WHERE persistence_id = $1', [$persistenceId]);

            return null;
        });
    }

    public function loadOffset(string $projection): Future
    {
        return $this->read(
            'SELECT last_offset FROM nexus_projection_offsets WHERE projection = $1',
            [$projection],
            static fn(PgResult $result): int => self::int($result->scalar()),
        );
    }

    /**
     * $work gets a PgConnection of its own (from the read pool) inside BEGIN ... COMMIT; it may
     * await its queries.
     */
    public function commitOffset(string $projection, int $offset, \Closure $work): Future
    {
        return $this->loop->async(function () use ($projection, $offset, $work): mixed {
            if (!$this->schemaReady) {
                $this->write(static fn(): null => null)->await();
            }
            try {
                $connection = $this->pool->acquireAsync()->await();
            } catch (\Throwable $e) {
                throw $this->unavailable($e);
            }
            try {
                $connection->query('BEGIN');
                $result = $work($connection);
                if ($result instanceof Future) {
                    $result = $result->await();
                }
                $connection->query('INSERT INTO nexus_projection_offsets (projection, last_offset, updated_at) VALUES ($1, $2, $3) ON CONFLICT (projection) DO UPDATE SET last_offset = EXCLUDED.last_offset, updated_at = EXCLUDED.updated_at', [$projection, $offset, StoreSupport::now()]);
                $connection->query('COMMIT');

                return $result;
            } finally {
                // The pool rolls back whatever is still open before the connection is reused.
                $this->pool->release($connection);
            }
        });
    }

    public function close(): void
    {
        $this->closed = true;
        foreach ($this->writers as $slot => $writer) {
            $writer?->close();
            $this->writers[$slot] = null;
        }
        $this->pool->close();
        while (!$this->writeQueue->isEmpty()) {
            $this->writeQueue->dequeue()[1]->tryReject($this->closedError());
        }
        while (!$this->readQueue->isEmpty()) {
            $this->readQueue->dequeue()[3]->tryReject($this->closedError());
        }
    }

    /**
     * Runs $job on a write connection of its own, inside a fiber (so that it may await its
     * queries), as soon as one is free; until the tables exist, one job at a time (the first
     * creates them). A failure of the connection or the server becomes a
     * StoreUnavailableException and that connection is replaced on its next job.
     *
     * @template T
     *
     * @param \Closure(PgConnection, int): T $job given the connection and its slot
     *
     * @return Future<T>
     */
    private function write(\Closure $job): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, $this->closedError());
        }
        if ($this->writeQueue->count() >= self::MAX_WAITING) {
            return Future::rejected($this->loop, new StoreOverloadedException(\sprintf('%d writes already wait for a connection to %s; retry later.', self::MAX_WAITING, $this->describe())));
        }
        /** @var Deferred<T> $deferred */
        $deferred = new Deferred($this->loop);
        $this->writeQueue->enqueue([$job, $deferred]);
        $this->dispatchWrites();

        return $deferred->future();
    }

    private function dispatchWrites(): void
    {
        while (!$this->writeQueue->isEmpty() && $this->freeWriters !== [] && !$this->closed && ($this->schemaReady || !$this->creatingSchema)) {
            $slot = array_pop($this->freeWriters);
            [$job, $deferred] = $this->writeQueue->dequeue();
            $this->creatingSchema = !$this->schemaReady;
            $this->loop->async(function () use ($slot, $job): mixed {
                try {
                    $connection = $this->writers[$slot];
                    if ($connection === null || $connection->isClosed()) {
                        unset($this->prepared[$slot]);
                        // Its statements (the journal writes) count under the pool's name, nexus-store.
                        $connection = $this->writers[$slot] = $this->pool->measure(PgConnection::connectAsync($this->loop, $this->config)->await());
                    }
                    if (!$this->schemaReady) {
                        $connection->query(PostgresSchema::SQL);
                        $this->schemaReady = true;
                    }
                    // Planned once per connection: the batch statement is the same every time.
                    $this->prepared[$slot] ??= $connection->prepare(PostgresSchema::WRITE_EVENTS_AT_ONCE);

                    return $job($connection, $slot);
                } catch (\Throwable $e) {
                    $this->abandonWriter($slot);

                    throw $this->unavailable($e);
                }
            })->onSettle(function (?\Throwable $error, mixed $result) use ($slot, $deferred): void {
                $this->freeWriters[] = $slot;
                $this->creatingSchema = false;
                if ($error !== null) {
                    $deferred->reject($error);
                } else {
                    $deferred->resolve($result);
                }
                $this->dispatchWrites();
                $this->dispatchReads();
            });
        }
    }

    /**
     * Runs one query on the read pool, at most PostgresOptions::$readConnections at once (the
     * others wait here, in order, without a timer each).
     *
     * @template T
     *
     * @param array<mixed> $params
     * @param \Closure(PgResult): T $map
     *
     * @return Future<T>
     */
    private function read(string $sql, array $params, \Closure $map): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, $this->closedError());
        }
        if ($this->readQueue->count() >= self::MAX_WAITING) {
            return Future::rejected($this->loop, new StoreOverloadedException(\sprintf('%d reads already wait for a connection to %s; retry later.', self::MAX_WAITING, $this->describe())));
        }
        /** @var Deferred<T> $deferred */
        $deferred = new Deferred($this->loop);
        $this->readQueue->enqueue([$sql, $params, $map, $deferred]);
        if (!$this->schemaReady) {
            // The first write job creates the tables; reads wait for it, and fail with it.
            $this->write(static fn(): null => null)->onSettle(function (?\Throwable $error): void {
                if ($error !== null && !$this->schemaReady) {
                    while (!$this->readQueue->isEmpty()) {
                        $this->readQueue->dequeue()[3]->tryReject($error);
                    }
                }
            });
        }
        // The reads asked for during one loop turn go out together at its end (the recoveries of
        // the actors started in one turn share statements), spread over the free connections.
        if (!$this->readsScheduled) {
            $this->readsScheduled = true;
            $this->loop->defer(function (): void {
                $this->readsScheduled = false;
                $this->dispatchReads();
            });
        }

        return $deferred->future();
    }

    private function dispatchReads(): void
    {
        while ($this->schemaReady && !$this->readQueue->isEmpty() && $this->readsInFlight < $this->readConnections && !$this->closed) {
            [$sql, $params, $map, $deferred] = $this->readQueue->dequeue();
            if ($sql === PostgresSchema::READ_EVENTS) {
                // As many reads per statement as spreads the queue evenly over the free connections.
                $share = (int) ceil(($this->readQueue->count() + 1) / ($this->readConnections - $this->readsInFlight));
                $this->dispatchEventReads([[$params, $deferred]], min(self::READS_PER_STATEMENT, $share));
                continue;
            }
            ++$this->readsInFlight;
            $this->pool->queryAsync($sql, $params)->onSettle(function (?\Throwable $error, mixed $result) use ($deferred, $map): void {
                --$this->readsInFlight;
                if (!$result instanceof PgResult) {
                    $deferred->reject($this->unavailable($error ?? new \RuntimeException('The query gave no result.')));
                } else {
                    try {
                        $deferred->resolve($map($result));
                    } catch (\Throwable $e) {
                        $deferred->reject($this->unavailable($e));
                    }
                }
                $this->dispatchReads();
            });
        }
    }

    /**
     * Sends the event reads $first and those queued right behind it (at most $most reads, and 20,000
     * events in all) as one READ_EVENTS statement, and hands each read its rows.
     *
     * @param list<array{array<mixed>, Deferred<mixed>}> $reads
     */
    private function dispatchEventReads(array $reads, int $most): void
    {
        $limit = self::int($reads[0][0][3]);
        while (\count($reads) < $most && !$this->readQueue->isEmpty()) {
            [$sql, $params] = $this->readQueue->bottom();
            if ($sql !== PostgresSchema::READ_EVENTS || $limit + self::int($params[3]) > 20_000) {
                break;
            }
            [, $params, , $deferred] = $this->readQueue->dequeue();
            $reads[] = [$params, $deferred];
            $limit += self::int($params[3]);
        }
        $columns = [[], [], [], []];
        foreach ($reads as [$params]) {
            $columns[0][] = self::string($params[0]);
            $columns[1][] = self::int($params[1]);
            $columns[2][] = self::int($params[2]);
            $columns[3][] = self::int($params[3]);
        }
        ++$this->readsInFlight;
        $this->pool->queryAsync(PostgresSchema::READ_EVENTS, [self::texts($columns[0]), self::ints($columns[1]), self::ints($columns[2]), self::ints($columns[3])])
            ->onSettle(function (?\Throwable $error, mixed $result) use ($reads): void {
                --$this->readsInFlight;
                if (!$result instanceof PgResult) {
                    $failure = $this->unavailable($error ?? new \RuntimeException('The query gave no result.'));
                    foreach ($reads as [, $deferred]) {
                        $deferred->reject($failure);
                    }
                } else {
                    try {
                        $events = array_fill(1, \count($reads), []);
                        // Columns: i, then the journal's (see PostgresSchema::READ_EVENTS).
                        foreach ($result->rawRows() as $row) {
                            $events[(int) $row[0]][] = self::event($row, 1);
                        }
                        foreach ($reads as $n => [, $deferred]) {
                            $deferred->resolve($events[$n + 1]);
                        }
                    } catch (\Throwable $e) {
                        foreach ($reads as [, $deferred]) {
                            $deferred->tryReject($this->unavailable($e));
                        }
                    }
                }
                $this->dispatchReads();
            });
    }

    private function abandonWriter(int $slot): void
    {
        $writer = $this->writers[$slot] ?? null;
        $this->writers[$slot] = null;
        unset($this->prepared[$slot]);
        if ($writer === null || $writer->isClosed()) {
            return;
        }
        // A failed statement leaves the transaction aborted; rolling back would be one more
        // round trip to a server that may be gone. Closing ends the transaction server-side.
        $writer->close();
    }

    private function unavailable(\Throwable $error): StoreUnavailableException
    {
        if ($error instanceof StoreUnavailableException) {
            return $error;
        }
        if ($error instanceof PersistenceException) {
            return new StoreUnavailableException($error->getMessage(), 0, $error);
        }
        $hint = $error instanceof PgQueryException ? match (substr($error->sqlState, 0, 2)) {
            '53' => 'the server is out of resources (disk, memory or connections)',
            '57' => 'the server is shutting down or cancelled the statement',
            '25' => 'the server refuses writes (a read-only transaction or standby)',
            '42' => 'the tables are not what this version of Nexus expects',
            default => 'see the cause',
        } : 'check that the server is up and reachable';

        return new StoreUnavailableException(sprintf('The PostgreSQL store at %s failed: %s (%s).', $this->describe(), $error->getMessage(), $hint), 0, $error);
    }

    private function closedError(): StoreUnavailableException
    {
        return new StoreUnavailableException("The PostgreSQL store at {$this->describe()} is closed.");
    }

    /**
     * @return list<PersistedEvent>
     */
    private static function events(PgResult $result): array
    {
        $events = [];
        foreach ($result->rawRows() as $row) {
            $events[] = self::event($row, 0);
        }

        return $events;
    }

    /**
     * The event in the columns of $row from $at on: ordering, persistence_id, sequence_nr,
     * writer_epoch, event_name, event_version, payload_format, payload, tags, written_at, as the
     * server's text (NOT NULL columns: converted here in one pass, no typed copy of the row).
     *
     * @param list<string|null> $row
     */
    private static function event(array $row, int $at): PersistedEvent
    {
        /** @var list<string> $row */
        $format = $row[$at + 6];
        $tags = $row[$at + 8];

        return new PersistedEvent(
            $row[$at + 1],
            (int) $row[$at + 2],
            (int) $row[$at + 3],
            (int) $row[$at],
            $row[$at + 4],
            (int) $row[$at + 5],
            $format === 'json' ? PayloadFormat::Json : PayloadFormat::from($format),
            $row[$at + 7],
            $tags === '' ? [] : StoreSupport::decodeTags($tags),
            (int) $row[$at + 9],
        );
    }

    /**
     * @param array<string, mixed> $row
     */
    private static function payload(array $row): Payload
    {
        return new Payload(self::string($row['state_name']), self::int($row['state_version']), PayloadFormat::from(self::string($row['payload_format'])), self::string($row['payload']));
    }

    /**
     * @param list<array<string, mixed>>|list<string> $rows
     */
    private static function json(array $rows): string
    {
        return json_encode($rows, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES);
    }

    /**
     * A PostgreSQL array literal of integers.
     *
     * @param list<int> $values
     */
    private static function ints(array $values): string
    {
        return '{' . implode(',', $values) . '}';
    }

    /**
     * A PostgreSQL array literal of texts: each element quoted, with " and \ escaped (the texts
     * hold no NUL byte: StoreSupport checked).
     *
     * @param list<string> $values
     */
    private static function texts(array $values): string
    {
        if ($values === []) {
            return '{}';
        }
        $quoted = '';
        foreach ($values as $value) {
            $quoted .= ',"' . addcslashes($value, '"\\') . '"';
        }

        return '{' . substr($quoted, 1) . '}';
    }

    private static function int(mixed $value): int
    {
        return \is_int($value) ? $value : (is_numeric($value) ? (int) $value : 0);
    }

    private static function string(mixed $value): string
    {
        return \is_string($value) ? $value : (\is_scalar($value) ? (string) $value : '');
    }
}
