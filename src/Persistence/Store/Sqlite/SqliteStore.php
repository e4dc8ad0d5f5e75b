<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Sqlite;

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
use Nexus\Persistence\Store\StoreSupport;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The embedded store: one SQLite file in WAL mode, through PDO. Several processes (the workers
 * of a pool) may open the same file; SQLite lets one write at a time, and a writer waits up to
 * the busy timeout for another.
 *
 * SQLite blocks: each operation runs to completion on the loop's thread and returns a settled
 * future, except a write transaction that finds the write lock taken by another connection: it
 * waits on the loop (the future settles later) instead of sleeping the process. A batch of
 * writes is one transaction (BEGIN IMMEDIATE ... COMMIT), followed with synchronous=FULL by one
 * fsync of the WAL, after the write lock is released and before anything is acknowledged
 * (SqliteConnection::synced()): a commit of 1,000 events stalls the loop for a few milliseconds,
 * one commit per event would cost that fsync each time (see docs/persistence.md). Reads are
 * bounded by their $max.
 *
 * A write is conditional without an extra query in the common case: (persistence_id,
 * sequence_nr) is unique, so a taken number fails the insert, and the epoch of the event before
 * it is known from what this store last wrote or read for the id (a fact that never changes);
 * only when it is not known is it looked up.
 */
final class SqliteStore implements Store
{
    private const INSERT_TAG = 'INSERT INTO nexus_event_tags (tag, ordering) VALUES (?, ?)';
    private const EVENT_AT = 'SELECT writer_epoch FROM nexus_journal WHERE persistence_id = ? AND sequence_nr = ?';
    private const HEAD = 'SELECT sequence_nr, writer_epoch FROM nexus_journal WHERE persistence_id = ? ORDER BY sequence_nr DESC LIMIT 1';
    private const COLUMNS = 'ordering, persistence_id, sequence_nr, writer_epoch, event_name, event_version, payload_format, payload, tags, written_at';
    /** How many ids' last known (sequence number, epoch) are remembered. */
    private const KNOWN_LIMIT = 100_000;

    private readonly SqliteConnection $connection;
    /** A second connection for projections, whose handlers may wait inside their transaction. */
    private readonly SqliteConnection $projections;
    /** @var array<string, array{int, int}> id => (a sequence number, the epoch stored with it) */
    private array $known = [];
    private bool $closed = false;

    public function __construct(
        private readonly Loop $loop,
        string $path,
        private readonly SqliteOptions $options = new SqliteOptions(),
    ) {
        $this->connection = new SqliteConnection($path, $options);
        $this->projections = new SqliteConnection($path, $options);
    }

    public function path(): string
    {
        return $this->connection->path;
    }

    /**
     * Opens the database now (it is otherwise opened on first use) and creates the tables if
     * needed; throws StoreUnavailableException when that fails.
     */
    public function open(): void
    {
        $this->run(function (): void {
            $this->connection->pdo();
        });
    }

    public function writeEvents(array $writes): Future
    {
        return $this->transaction(function (\PDO $pdo) use ($writes): array {
            $connection = $this->connection;
            $row = $connection->journalInsert();
            $insert = $row->statement;
            $row->writtenAt = StoreSupport::now();
            $results = [];
            $learnt = [];
            $offset = self::int(SqliteConnection::value($pdo, 'SELECT COALESCE(MAX(ordering), 0) FROM nexus_journal'));
            foreach ($writes as $write) {
                $id = $write->persistenceId;
                $seq = $write->firstSequenceNr;
                $epoch = $write->writerEpoch;
                $events = $write->events;
                $count = \count($events);
                $several = $count > 1;
                // The common case without a call: one event known to be text with no tags, after
                // the event this store last wrote or read for the id, by this epoch or an older one.
                $fact = $learnt[$id] ?? $this->known[$id] ?? null;
                if ($count !== 1 || $write->tags !== [] || !$events[0]->text || $fact === null || $fact[0] !== $seq - 1 || $fact[1] > $epoch || !StoreSupport::isKnownName($events[0]->name)) {
                    $refused = StoreSupport::unstorable($write) ?? $this->refusal($write, $learnt);
                    if ($refused !== null) {
                        $results[] = $refused;
                        continue;
                    }
                }
                if ($several) {
                    $pdo->exec('SAVEPOINT nexus_write');
                }
                $before = $offset;
                $row->persistenceId = $id;
                $row->writerEpoch = $epoch;
                try {
                    foreach ($events as $i => $payload) {
                        $tags = $write->tags === [] ? [] : $write->tagsOf($i);
                        $row->ordering = ++$offset;
                        $row->sequenceNr = $seq + $i;
                        $row->name = $payload->name;
                        $row->version = $payload->version;
                        $row->format = $payload->format->value;
                        $row->data = $payload->data;
                        $row->tags = $tags === [] ? '' : StoreSupport::encodeTags($tags);
                        $insert->execute();
                        foreach ($tags as $tag) {
                            $connection->statement(self::INSERT_TAG)->execute([$tag, $offset]);
                        }
                    }
                } catch (\PDOException $e) {
                    if (($e->errorInfo[1] ?? 0) !== 19) {
                        throw $e;
                    }
                    // A failed step leaves the statement in that state until it is reset;
                    // executed again in a later transaction it would fail with SQLITE_MISUSE.
                    $insert->closeCursor();
                    if ($several) {
                        $pdo->exec('ROLLBACK TO nexus_write');
                        $pdo->exec('RELEASE nexus_write');
                    }
                    $offset = $before;
                    $head = $this->head($id);
                    $results[] = StoreSupport::conflict($write, $head[0], $head[1]);
                    continue;
                }
                if ($several) {
                    $pdo->exec('RELEASE nexus_write');
                }
                $learnt[$id] = [$seq + $count - 1, $epoch];
                $results[] = null;
            }
            $pdo->exec('COMMIT');
            $this->learn($learnt);

            return $results;
        });
    }

    public function readEvents(string $persistenceId, int $fromSequenceNr, int $toSequenceNr, int $max): Future
    {
        return $this->future(function () use ($persistenceId, $fromSequenceNr, $toSequenceNr, $max): array {
            $statement = $this->connection->statement('SELECT ' . self::COLUMNS . ' FROM nexus_journal WHERE persistence_id = ? AND sequence_nr >= ? AND sequence_nr <= ? AND deleted = 0 ORDER BY sequence_nr LIMIT ?');
            $statement->execute([$persistenceId, $fromSequenceNr, $toSequenceNr, $max]);
            $events = self::events($statement);
            if ($events !== []) {
                $last = $events[\count($events) - 1];
                $this->learn([$persistenceId => [$last->sequenceNr, $last->writerEpoch]]);
            }

            return $events;
        });
    }

    public function highestSequenceNr(string $persistenceId): Future
    {
        return $this->future(function () use ($persistenceId): JournalHead {
            [$seq, $epoch] = $this->head($persistenceId);
            if ($seq > 0) {
                $this->learn([$persistenceId => [$seq, $epoch]]);
            }

            return new JournalHead($seq, $epoch);
        });
    }

    public function deleteEvents(string $persistenceId, int $toSequenceNr): Future
    {
        return $this->transaction(function (\PDO $pdo) use ($persistenceId, $toSequenceNr): null {
            [$highest] = $this->head($persistenceId);
            $below = min($toSequenceNr, $highest - 1);
            $this->connection->statement('DELETE FROM nexus_event_tags WHERE ordering IN (SELECT ordering FROM nexus_journal WHERE persistence_id = ? AND sequence_nr <= ?)')
                ->execute([$persistenceId, min($toSequenceNr, $highest)]);
            $this->connection->statement('DELETE FROM nexus_journal WHERE persistence_id = ? AND sequence_nr <= ?')->execute([$persistenceId, $below]);
            if ($highest > 0 && $toSequenceNr >= $highest) {
                $this->connection->statement("UPDATE nexus_journal SET deleted = 1, payload = '', tags = '' WHERE persistence_id = ? AND sequence_nr = ?")->execute([$persistenceId, $highest]);
            }
            $pdo->exec('COMMIT');

            return null;
        });
    }

    public function readEventsByTag(string $tag, int $afterOffset, int $max): Future
    {
        return $this->future(function () use ($tag, $afterOffset, $max): array {
            $statement = $this->connection->statement('SELECT j.ordering, j.persistence_id, j.sequence_nr, j.writer_epoch, j.event_name, j.event_version, j.payload_format, j.payload, j.tags, j.written_at FROM nexus_event_tags t JOIN nexus_journal j ON j.ordering = t.ordering WHERE t.tag = ? AND t.ordering > ? AND j.deleted = 0 ORDER BY t.ordering LIMIT ?');
            $statement->execute([$tag, $afterOffset, $max]);

            return self::events($statement);
        });
    }

    public function saveSnapshots(array $snapshots, int $keep): Future
    {
        return $this->transaction(function (\PDO $pdo) use ($snapshots, $keep): array {
            $save = $this->connection->statement('INSERT OR REPLACE INTO nexus_snapshots (persistence_id, sequence_nr, state_name, state_version, payload_format, payload, written_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
            $prune = $this->connection->statement('DELETE FROM nexus_snapshots WHERE persistence_id = ? AND sequence_nr < (SELECT sequence_nr FROM nexus_snapshots WHERE persistence_id = ? ORDER BY sequence_nr DESC LIMIT 1 OFFSET ?)');
            $oldest = $this->connection->statement('SELECT MIN(sequence_nr) FROM nexus_snapshots WHERE persistence_id = ?');
            $now = StoreSupport::now();
            $kept = [];
            foreach ($snapshots as $snapshot) {
                $state = $snapshot->state;
                $save->execute([$snapshot->persistenceId, $snapshot->sequenceNr, $state->name, $state->version, $state->format->value, $state->data, $now]);
                $prune->execute([$snapshot->persistenceId, $snapshot->persistenceId, max(1, $keep) - 1]);
                $oldest->execute([$snapshot->persistenceId]);
                $kept[] = self::int($oldest->fetchColumn());
                $oldest->closeCursor();
            }
            $pdo->exec('COMMIT');

            return $kept;
        });
    }

    public function loadSnapshot(string $persistenceId, int $maxSequenceNr = \PHP_INT_MAX): Future
    {
        return $this->future(function () use ($persistenceId, $maxSequenceNr): ?SnapshotRecord {
            $statement = $this->connection->statement('SELECT sequence_nr, state_name, state_version, payload_format, payload, written_at FROM nexus_snapshots WHERE persistence_id = ? AND sequence_nr <= ? ORDER BY sequence_nr DESC LIMIT 1');
            $statement->execute([$persistenceId, $maxSequenceNr]);
            $row = $statement->fetch(\PDO::FETCH_NUM);
            $statement->closeCursor();
            if (!\is_array($row)) {
                return null;
            }

            return new SnapshotRecord($persistenceId, self::int($row[0]), self::payload($row[1], $row[2], $row[3], $row[4]), self::int($row[5]));
        });
    }

    public function deleteSnapshots(string $persistenceId, int $maxSequenceNr): Future
    {
        return $this->future(function () use ($persistenceId, $maxSequenceNr): null {
            $this->connection->statement('DELETE FROM nexus_snapshots WHERE persistence_id = ? AND sequence_nr <= ?')->execute([$persistenceId, $maxSequenceNr]);

            return $this->committed(null);
        });
    }

    public function loadState(string $persistenceId): Future
    {
        return $this->future(function () use ($persistenceId): ?StateRecord {
            $statement = $this->connection->statement('SELECT revision, state_name, state_version, payload_format, payload, written_at FROM nexus_durable_state WHERE persistence_id = ?');
            $statement->execute([$persistenceId]);
            $row = $statement->fetch(\PDO::FETCH_NUM);
            $statement->closeCursor();
            if (!\is_array($row)) {
                return null;
            }

            return new StateRecord($persistenceId, self::int($row[0]), self::payload($row[1], $row[2], $row[3], $row[4]), self::int($row[5]));
        });
    }

    public function writeStates(array $states): Future
    {
        return $this->transaction(function (\PDO $pdo) use ($states): array {
            $insert = $this->connection->statement('INSERT INTO nexus_durable_state (persistence_id, revision, state_name, state_version, payload_format, payload, written_at) VALUES (?, 1, ?, ?, ?, ?, ?) ON CONFLICT (persistence_id) DO NOTHING');
            $update = $this->connection->statement('UPDATE nexus_durable_state SET revision = ?, state_name = ?, state_version = ?, payload_format = ?, payload = ?, written_at = ? WHERE persistence_id = ? AND revision = ?');
            $now = StoreSupport::now();
            $results = [];
            foreach ($states as $record) {
                $refused = StoreSupport::unstorableState($record);
                if ($refused !== null) {
                    $results[] = $refused;
                    continue;
                }
                $state = $record->state;
                if ($record->revision === 1) {
                    $insert->execute([$record->persistenceId, $state->name, $state->version, $state->format->value, $state->data, $now]);
                    $written = $insert->rowCount() === 1;
                } else {
                    $update->execute([$record->revision, $state->name, $state->version, $state->format->value, $state->data, $now, $record->persistenceId, $record->revision - 1]);
                    $written = $update->rowCount() === 1;
                }
                $results[] = $written ? null : StoreSupport::stateConflict($record, $this->revision($record->persistenceId));
            }
            $pdo->exec('COMMIT');

            return $results;
        });
    }

    public function deleteState(string $persistenceId): Future
    {
        return $this->future(function () use ($persistenceId): null {
            $this->connection->statement('DELETE FROM nexus_durable_state WHERE persistence_id = ?')->execute([$persistenceId]);

            return $this->committed(null);
        });
    }

    public function loadOffset(string $projection): Future
    {
        return $this->future(function () use ($projection): int {
            $statement = $this->connection->statement('SELECT last_offset FROM nexus_projection_offsets WHERE projection = ?');
            $statement->execute([$projection]);
            $offset = $statement->fetchColumn();
            $statement->closeCursor();

            return \is_int($offset) ? $offset : 0;
        });
    }

    /**
     * $work gets the \PDO of a connection of its own, inside BEGIN IMMEDIATE: it holds the write
     * lock of the file until it returns, so keep it short and do not wait inside it (the
     * journal's writes wait for it, at most the busy timeout).
     */
    public function commitOffset(string $projection, int $offset, \Closure $work): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new StoreUnavailableException("The SQLite store at {$this->path()} is closed."));
        }
        try {
            $pdo = $this->projections->pdo();
            $pdo->exec('BEGIN IMMEDIATE');
        } catch (\Throwable $e) {
            return Future::rejected($this->loop, $this->projections->failed($e));
        }
        try {
            $result = $work($pdo);
            if ($result instanceof Future) {
                $result = $result->await();
            }
        } catch (\Throwable $e) {
            try {
                $pdo->exec('ROLLBACK');
            } catch (\Throwable $rollback) {
                $this->projections->failed($rollback);
            }

            return Future::rejected($this->loop, $e);
        }
        try {
            $this->projections->statement('INSERT INTO nexus_projection_offsets (projection, last_offset, updated_at) VALUES (?, ?, ?) ON CONFLICT (projection) DO UPDATE SET last_offset = excluded.last_offset, updated_at = excluded.updated_at')
                ->execute([$projection, $offset, StoreSupport::now()]);
            $pdo->exec('COMMIT');
            $this->projections->synced();
        } catch (\Throwable $e) {
            return Future::rejected($this->loop, $this->projections->failed($e));
        }

        return Future::fulfilled($this->loop, $result);
    }

    public function close(): void
    {
        $this->closed = true;
        $this->connection->close();
        $this->projections->close();
        $this->known = [];
    }

    /**
     * Why $write cannot follow what is stored (the event before it is missing, or was written by
     * a newer epoch), or null. A taken sequence number is found by the insert itself.
     *
     * @param array<string, array{int, int}> $learnt what this batch wrote so far
     */
    private function refusal(AtomicWrite $write, array $learnt): ?PersistenceException
    {
        $previous = $write->firstSequenceNr - 1;
        $known = $learnt[$write->persistenceId] ?? $this->known[$write->persistenceId] ?? null;
        if ($previous <= 0) {
            // The first event of an id: free unless the id has history, also one whose events
            // were all deleted (the highest is kept, flagged as deleted).
            $highest = $known !== null && $known[0] > 0 ? $known[0] : $this->head($write->persistenceId)[0];

            return $highest === 0 && $previous === 0 ? null : StoreSupport::conflict($write, $highest, 0);
        }
        if ($known !== null && $known[0] === $previous) {
            $epoch = $known[1];
        } else {
            $statement = $this->connection->statement(self::EVENT_AT);
            $statement->execute([$write->persistenceId, $previous]);
            $epoch = $statement->fetchColumn();
            $statement->closeCursor();
            if (!\is_int($epoch)) {
                $head = $this->head($write->persistenceId);

                return StoreSupport::conflict($write, $head[0], $head[1]);
            }
        }
        if ($epoch > $write->writerEpoch) {
            return StoreSupport::conflict($write, $previous, $epoch);
        }

        return null;
    }

    /**
     * @return array{int, int} the highest sequence number of an id and its epoch
     */
    private function head(string $persistenceId): array
    {
        $statement = $this->connection->statement(self::HEAD);
        $statement->execute([$persistenceId]);
        $row = $statement->fetch(\PDO::FETCH_NUM);
        $statement->closeCursor();

        return \is_array($row) ? [self::int($row[0]), self::int($row[1])] : [0, 0];
    }

    private function revision(string $persistenceId): int
    {
        $statement = $this->connection->statement('SELECT revision FROM nexus_durable_state WHERE persistence_id = ?');
        $statement->execute([$persistenceId]);
        $revision = $statement->fetchColumn();
        $statement->closeCursor();

        return \is_int($revision) ? $revision : 0;
    }

    /**
     * @param array<string, array{int, int}> $facts
     */
    private function learn(array $facts): void
    {
        if (\count($this->known) + \count($facts) > self::KNOWN_LIMIT) {
            $this->known = [];
        }
        foreach ($facts as $id => $fact) {
            $this->known[$id] = $fact;
        }
    }

    /**
     * @return list<PersistedEvent>
     */
    private static function events(\PDOStatement $statement): array
    {
        $events = [];
        // The columns are NOT NULL with SQLite's INTEGER and TEXT affinities, which PDO returns as
        // int and string: no conversion on the hot path of recovery.
        /** @var list<array{int, string, int, int, string, int, string, string, string, int}> $rows */
        $rows = $statement->fetchAll(\PDO::FETCH_NUM);
        foreach ($rows as $row) {
            $events[] = new PersistedEvent(
                $row[1],
                $row[2],
                $row[3],
                $row[0],
                $row[4],
                $row[5],
                $row[6] === 'json' ? PayloadFormat::Json : PayloadFormat::from($row[6]),
                $row[7],
                $row[8] === '' ? [] : StoreSupport::decodeTags($row[8]),
                $row[9],
            );
        }

        return $events;
    }

    private static function payload(mixed $name, mixed $version, mixed $format, mixed $data): Payload
    {
        return new Payload(self::string($name), self::int($version), PayloadFormat::from(self::string($format)), self::string($data));
    }

    private static function int(mixed $value): int
    {
        return \is_int($value) ? $value : (is_numeric($value) ? (int) $value : 0);
    }

    private static function string(mixed $value): string
    {
        return \is_string($value) ? $value : (\is_scalar($value) ? (string) $value : '');
    }

    /**
     * Runs $body($pdo) in a write transaction (BEGIN IMMEDIATE; $body commits). When another
     * connection (another worker) holds the write lock, it waits on the loop (retrying every
     * 0.2 ms, then up to every 5 ms) rather than in SQLite's busy handler, which would sleep the
     * whole process; after the busy timeout it fails with "database is locked". The future is
     * settled at once when the lock was free.
     *
     * @template T
     *
     * @param \Closure(\PDO): T $body
     *
     * @return Future<T>
     */
    private function transaction(\Closure $body): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new StoreUnavailableException("The SQLite store at {$this->path()} is closed."));
        }
        try {
            if ($this->connection->tryBegin()) {
                return Future::fulfilled($this->loop, $this->run(fn(): mixed => $this->committed($body($this->connection->pdo()))));
            }
        } catch (StoreUnavailableException $e) {
            return Future::rejected($this->loop, $e);
        } catch (\Throwable $e) {
            return Future::rejected($this->loop, $this->connection->failed($e));
        }
        /** @var Deferred<T> $deferred */
        $deferred = new Deferred($this->loop);
        $this->retryTransaction($body, $deferred, microtime(true) + $this->options->busyTimeout, 0.0002);

        return $deferred->future();
    }

    /**
     * @template T
     *
     * @param \Closure(\PDO): T $body
     * @param Deferred<T>         $deferred
     */
    private function retryTransaction(\Closure $body, Deferred $deferred, float $deadline, float $delay): void
    {
        $this->loop->delay($delay, function () use ($body, $deferred, $deadline, $delay): void {
            if ($this->closed) {
                $deferred->reject(new StoreUnavailableException("The SQLite store at {$this->path()} is closed."));

                return;
            }
            try {
                if ($this->connection->tryBegin()) {
                    $deferred->resolve($this->run(fn(): mixed => $this->committed($body($this->connection->pdo()))));

                    return;
                }
            } catch (StoreUnavailableException $e) {
                $deferred->reject($e);

                return;
            } catch (\Throwable $e) {
                $deferred->reject($this->connection->failed($e));

                return;
            }
            if (microtime(true) >= $deadline) {
                $deferred->reject($this->connection->lockedTooLong());

                return;
            }
            $this->retryTransaction($body, $deferred, $deadline, min($delay * 2, 0.005));
        });
    }

    /**
     * $result, once what was committed is durable (SqliteConnection::synced()).
     *
     * @template T
     *
     * @param T $result
     *
     * @return T
     */
    private function committed(mixed $result): mixed
    {
        $this->connection->synced();

        return $result;
    }

    /**
     * Runs $operation now and wraps its result (or its failure, as StoreUnavailableException)
     * in a settled future.
     *
     * @template T
     *
     * @param \Closure(): T $operation
     *
     * @return Future<T>
     */
    private function future(\Closure $operation): Future
    {
        try {
            return Future::fulfilled($this->loop, $this->run($operation));
        } catch (StoreUnavailableException $e) {
            return Future::rejected($this->loop, $e);
        }
    }

    /**
     * @template T
     *
     * @param \Closure(): T $operation
     *
     * @return T
     */
    private function run(\Closure $operation): mixed
    {
        if ($this->closed) {
            throw new StoreUnavailableException("The SQLite store at {$this->path()} is closed.");
        }
        try {
            return $operation();
        } catch (\Throwable $e) {
            throw $this->connection->failed($e);
        }
    }
}
