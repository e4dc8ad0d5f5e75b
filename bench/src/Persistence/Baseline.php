<?php

declare(strict_types=1);

namespace Nexus\Bench\Persistence;

use Nexus\Persistence\Store\Postgres\PostgresUrl;
use Nexus\Persistence\Store\Sqlite\SqliteOptions;
use Nexus\Postgres\PgConnection;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * The limit each case is held against: the same rows written (or read) with plain SQL on the
 * same database, in a table shaped like the journal (bench_journal, same columns and keys), with
 * nothing of Nexus in between but the driver: for SQLite a PDO with the store's settings, for
 * PostgreSQL the same asynchronous client.
 */
final class Baseline
{
    private const COLUMNS = 'ordering, persistence_id, sequence_nr, writer_epoch, event_name, event_version, payload_format, payload, tags, written_at';

    private ?\PDO $pdo = null;
    private ?PgConnection $pg = null;
    private int $ordering = 0;

    public function __construct(
        private readonly Loop $loop,
        private readonly string $store,
    ) {}

    public static function sqliteTable(): string
    {
        return 'CREATE TABLE IF NOT EXISTS bench_journal (ordering INTEGER PRIMARY KEY, persistence_id TEXT NOT NULL, sequence_nr INTEGER NOT NULL, writer_epoch INTEGER NOT NULL, event_name TEXT NOT NULL, event_version INTEGER NOT NULL, payload_format TEXT NOT NULL, payload TEXT NOT NULL, tags TEXT NOT NULL, written_at INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, UNIQUE (persistence_id, sequence_nr))';
    }

    public function reset(): void
    {
        $this->ordering = 0;
        if ($this->isSqlite()) {
            $this->sqlite()->exec('DROP TABLE IF EXISTS bench_journal');
            $this->sqlite()->exec(self::sqliteTable());

            return;
        }
        $this->pg()->query('DROP TABLE IF EXISTS bench_journal');
        $this->pg()->query('CREATE TABLE bench_journal (ordering BIGINT NOT NULL UNIQUE, persistence_id TEXT NOT NULL, sequence_nr BIGINT NOT NULL, writer_epoch BIGINT NOT NULL, event_name TEXT NOT NULL, event_version INT NOT NULL, payload_format TEXT NOT NULL, payload TEXT NOT NULL, tags TEXT NOT NULL, written_at BIGINT NOT NULL, deleted BOOLEAN NOT NULL DEFAULT FALSE, PRIMARY KEY (persistence_id, sequence_nr))');
    }

    /**
     * Empties the store's journal (written by an earlier run of a case), so that each run of
     * Nexus starts from an empty journal as each run of the baseline starts from an empty table:
     * the same write costs more as the journal grows.
     */
    public function emptyStoreJournal(): void
    {
        if ($this->isSqlite()) {
            $this->sqlite()->exec('DELETE FROM nexus_event_tags');
            $this->sqlite()->exec('DELETE FROM nexus_journal');

            return;
        }
        $this->pg()->query('TRUNCATE nexus_event_tags, nexus_journal');
    }

    /**
     * One row per transaction, one after the other: what a single actor that must not reply
     * before its event is durable can do at best. Returns the latency of each write in seconds.
     *
     * @return list<float>
     */
    public function sequential(int $rows): array
    {
        $latencies = [];
        if ($this->isSqlite()) {
            $insert = $this->sqlite()->prepare('INSERT INTO bench_journal (' . self::COLUMNS . ') VALUES (?, ?, ?, 1, ?, 1, ?, ?, ?, ?)');
            for ($seq = 1; $seq <= $rows; ++$seq) {
                $start = hrtime(true);
                $insert->execute([++$this->ordering, 'single', $seq, 'bench.incremented', 'json', '{"by":1}', '', (int) (microtime(true) * 1000)]);
                $latencies[] = (hrtime(true) - $start) / 1e9;
            }

            return $latencies;
        }
        $pg = $this->pg();
        for ($seq = 1; $seq <= $rows; ++$seq) {
            $start = hrtime(true);
            $pg->query('INSERT INTO bench_journal (' . self::COLUMNS . ') VALUES ($1, $2, $3, 1, $4, 1, $5, $6, $7, $8)', [++$this->ordering, 'single', $seq, 'bench.incremented', 'json', '{"by":1}', '', (int) (microtime(true) * 1000)]);
            $latencies[] = (hrtime(true) - $start) / 1e9;
        }

        return $latencies;
    }

    /**
     * $rounds rounds of one row for each of $ids ids, $batch rows per transaction (SQLite: a
     * prepared INSERT per row between BEGIN and COMMIT; PostgreSQL: one multi-row INSERT per
     * batch). Returns the seconds it took.
     */
    public function batched(int $ids, int $rounds, int $batch): float
    {
        $rows = [];
        for ($round = 1; $round <= $rounds; ++$round) {
            for ($i = 0; $i < $ids; ++$i) {
                $rows[] = ["c|{$i}", $round];
            }
        }
        $start = hrtime(true);
        $this->insert($rows, $batch);

        return (hrtime(true) - $start) / 1e9;
    }

    /**
     * Reads the rows of $ids back with one plain SELECT for up to $perStatement ids at a time
     * (PostgreSQL: `persistence_id = ANY($1)`, the fewest round trips plain SQL needs for many
     * short histories, $parallel statements at once; SQLite: `IN (SELECT value FROM
     * json_each(?))`), decoding each payload as JSON; returns
     * [seconds, rows]. Meant for many short histories: each id's rows come whole.
     *
     * @param list<string> $ids
     *
     * @return array{float, int}
     */
    public function readMany(array $ids, int $perStatement = 100, int $parallel = 4): array
    {
        if ($this->isSqlite()) {
            $start = hrtime(true);
            $rows = 0;
            $select = $this->sqlite()->prepare('SELECT ' . self::COLUMNS . ' FROM bench_journal WHERE persistence_id IN (SELECT value FROM json_each(?)) ORDER BY persistence_id, sequence_nr');
            foreach (array_chunk($ids, max(1, $perStatement)) as $chunk) {
                $select->execute([json_encode($chunk, \JSON_THROW_ON_ERROR)]);
                /** @var list<array{int, string, int, int, string, int, string, string, string, int}> $found */
                $found = $select->fetchAll(\PDO::FETCH_NUM);
                foreach ($found as $row) {
                    json_decode($row[7], true);
                }
                $rows += \count($found);
            }

            return [(hrtime(true) - $start) / 1e9, $rows];
        }
        $connections = [];
        for ($i = 0; $i < min($parallel, \count($ids)); ++$i) {
            $connections[] = PgConnection::connect($this->loop, PostgresUrl::parse($this->store));
        }
        $rows = 0;
        $start = hrtime(true);
        $queue = array_chunk($ids, max(1, $perStatement));
        $readers = [];
        foreach ($connections as $connection) {
            $readers[] = $this->loop->async(static function () use ($connection, &$queue, &$rows): void {
                while (($chunk = array_pop($queue)) !== null) {
                    $list = '{' . implode(',', array_map(static fn(string $id): string => '"' . addcslashes($id, '"\\') . '"', $chunk)) . '}';
                    $found = $connection->query('SELECT ' . self::COLUMNS . ' FROM bench_journal WHERE persistence_id = ANY($1::text[]) ORDER BY persistence_id, sequence_nr', [$list])->rows();
                    foreach ($found as $row) {
                        json_decode(\is_string($row['payload']) ? $row['payload'] : '', true);
                    }
                    $rows += \count($found);
                }
            });
        }
        Future::all($readers)->await();
        foreach ($connections as $connection) {
            $connection->close();
        }

        return [(hrtime(true) - $start) / 1e9, $rows];
    }

    /**
     * Reads the rows of $ids back with a plain SELECT per id (in pages of $page), decoding each
     * payload as JSON; returns [seconds, rows]. On PostgreSQL up to $parallel ids are read at once.
     *
     * @param list<string> $ids
     *
     * @return array{float, int}
     */
    public function read(array $ids, int $page, int $parallel = 4): array
    {
        $start = hrtime(true);
        $rows = 0;
        if ($this->isSqlite()) {
            $select = $this->sqlite()->prepare('SELECT ' . self::COLUMNS . ' FROM bench_journal WHERE persistence_id = ? AND sequence_nr >= ? ORDER BY sequence_nr LIMIT ?');
            foreach ($ids as $id) {
                $from = 1;
                do {
                    $select->execute([$id, $from, $page]);
                    /** @var list<array{int, string, int, int, string, int, string, string, string, int}> $found */
                    $found = $select->fetchAll(\PDO::FETCH_NUM);
                    foreach ($found as $row) {
                        json_decode($row[7], true);
                        $from = $row[2] + 1;
                    }
                    $rows += \count($found);
                } while (\count($found) === $page);
            }

            return [(hrtime(true) - $start) / 1e9, $rows];
        }
        $connections = [];
        for ($i = 0; $i < min($parallel, \count($ids)); ++$i) {
            $connections[] = PgConnection::connect($this->loop, PostgresUrl::parse($this->store));
        }
        $start = hrtime(true);
        $queue = $ids;
        $readers = [];
        foreach ($connections as $connection) {
            $readers[] = $this->loop->async(static function () use ($connection, &$queue, $page, &$rows): void {
                while (($id = array_pop($queue)) !== null) {
                    $from = 1;
                    do {
                        $found = $connection->query('SELECT ' . self::COLUMNS . ' FROM bench_journal WHERE persistence_id = $1 AND sequence_nr >= $2 ORDER BY sequence_nr LIMIT $3', [$id, $from, $page])->rows();
                        foreach ($found as $row) {
                            json_decode(\is_string($row['payload']) ? $row['payload'] : '', true);
                            $from = (\is_int($row['sequence_nr']) ? $row['sequence_nr'] : 0) + 1;
                        }
                        $rows += \count($found);
                    } while (\count($found) === $page);
                }
            });
        }
        Future::all($readers)->await();
        foreach ($connections as $connection) {
            $connection->close();
        }

        return [(hrtime(true) - $start) / 1e9, $rows];
    }

    /**
     * Writes $rounds events for each of $ids in batches (setup for the read baseline).
     *
     * @param list<string> $ids
     */
    public function fill(array $ids, int $rounds): void
    {
        $rows = [];
        foreach ($ids as $id) {
            for ($seq = 1; $seq <= $rounds; ++$seq) {
                $rows[] = [$id, $seq];
            }
        }
        $this->insert($rows, 1000);
    }

    /**
     * Inserts (id, sequence number) rows shaped like the journal's, $batch per transaction
     * (SQLite: a prepared INSERT per row between BEGIN and COMMIT; PostgreSQL: one multi-row
     * INSERT per batch), stamped with the time like the store's.
     *
     * @param list<array{string, int}> $rows
     */
    private function insert(array $rows, int $batch): void
    {
        foreach (array_chunk($rows, max(1, $batch)) as $chunk) {
            $now = (int) (microtime(true) * 1000);
            if ($this->isSqlite()) {
                // Parameters bound once by reference, integers as integers, as the store does
                // (JournalInsert): both sides use the driver the same way.
                $pdo = $this->sqlite();
                $insert = $pdo->prepare('INSERT INTO bench_journal (' . self::COLUMNS . ') VALUES (?, ?, ?, 1, ?, 1, ?, ?, ?, ?)');
                $ordering = $seq = 0;
                $id = '';
                $insert->bindParam(1, $ordering, \PDO::PARAM_INT);
                $insert->bindParam(2, $id, \PDO::PARAM_STR);
                $insert->bindParam(3, $seq, \PDO::PARAM_INT);
                $insert->bindValue(4, 'bench.incremented', \PDO::PARAM_STR);
                $insert->bindValue(5, 'json', \PDO::PARAM_STR);
                $insert->bindValue(6, '{"by":1}', \PDO::PARAM_STR);
                $insert->bindValue(7, '', \PDO::PARAM_STR);
                $insert->bindValue(8, $now, \PDO::PARAM_INT);
                $pdo->exec('BEGIN IMMEDIATE');
                foreach ($chunk as [$id, $seq]) {
                    $ordering = ++$this->ordering;
                    $insert->execute();
                }
                $pdo->exec('COMMIT');
            } else {
                $values = $params = [];
                $n = 0;
                foreach ($chunk as [$id, $seq]) {
                    $values[] = sprintf('($%d, $%d, $%d, 1, $%d, 1, $%d, $%d, $%d, $%d)', $n + 1, $n + 2, $n + 3, $n + 4, $n + 5, $n + 6, $n + 7, $n + 8);
                    array_push($params, ++$this->ordering, $id, $seq, 'bench.incremented', 'json', '{"by":1}', '', $now);
                    $n += 8;
                }
                $this->pg()->query('INSERT INTO bench_journal (' . self::COLUMNS . ') VALUES ' . implode(', ', $values), $params);
            }
        }
    }

    public function close(): void
    {
        $this->pdo = null;
        $this->pg?->close();
        $this->pg = null;
    }

    private function isSqlite(): bool
    {
        return str_starts_with($this->store, 'sqlite:');
    }

    private function sqlite(): \PDO
    {
        if ($this->pdo === null) {
            $options = new SqliteOptions();
            $pdo = new \PDO($this->store, null, null, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]);
            $pdo->exec('PRAGMA journal_mode = WAL');
            $pdo->exec('PRAGMA synchronous = ' . $options->synchronous->value);
            $pdo->exec('PRAGMA cache_size = -' . $options->cacheSize * 1024);
            $pdo->exec('PRAGMA wal_autocheckpoint = ' . $options->walAutocheckpoint);
            $pdo->exec('PRAGMA busy_timeout = 1000');
            $this->pdo = $pdo;
        }

        return $this->pdo;
    }

    private function pg(): PgConnection
    {
        return $this->pg ??= PgConnection::connect($this->loop, PostgresUrl::parse($this->store));
    }
}
