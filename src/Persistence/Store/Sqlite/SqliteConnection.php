<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Sqlite;

use Nexus\Persistence\Exception\StoreUnavailableException;

/**
 * One PDO connection to the store's database file, opened on first use and again after a
 * failure that may be mended outside (a read-only or corrupt file replaced, a full disk freed):
 * the store keeps working once the cause is gone, without a restart.
 *
 * Every PDOException becomes a StoreUnavailableException that names the file and says what to do.
 *
 * With SqliteSynchronous::Full the durability of a commit is ensured here, not inside SQLite:
 * the connection runs with synchronous=NORMAL (a commit writes the log without syncing it, and
 * releases the write lock at once), and synced() then syncs the log file itself before the store
 * acknowledges anything. Another worker waiting for the lock may commit meanwhile; one sync of
 * the log then covers both. What is acknowledged is on disk, as with SQLite's own FULL; what is
 * visible to other connections is not always yet (they see a commit a sync earlier).
 *
 * @internal
 */
final class SqliteConnection
{
    private ?\PDO $pdo = null;
    /** @var resource|null the write-ahead log, kept open to sync it after each commit */
    private $log = null;
    private int $logInode = 0;
    /** @var array<string, \PDOStatement> */
    private array $statements = [];
    private ?JournalInsert $journalInsert = null;

    public function __construct(
        public readonly string $path,
        private readonly SqliteOptions $options,
    ) {}

    public function pdo(): \PDO
    {
        return $this->pdo ??= $this->open();
    }

    public function statement(string $sql): \PDOStatement
    {
        return $this->statements[$sql] ??= $this->pdo()->prepare($sql);
    }

    /**
     * The journal's INSERT, its parameters bound by reference (see JournalInsert).
     */
    public function journalInsert(): JournalInsert
    {
        return $this->journalInsert ??= new JournalInsert($this->statement(JournalInsert::SQL));
    }

    public function isOpen(): bool
    {
        return $this->pdo !== null;
    }

    /**
     * BEGIN IMMEDIATE without waiting: false when another connection holds the write lock (the
     * caller waits on the loop instead of in SQLite's busy handler, which sleeps the process).
     */
    public function tryBegin(): bool
    {
        $pdo = $this->pdo();
        $pdo->exec('PRAGMA busy_timeout = 0');
        try {
            $pdo->exec('BEGIN IMMEDIATE');

            return true;
        } catch (\PDOException $e) {
            if (($e->errorInfo[1] ?? 0) === 5) {
                return false;
            }

            throw $e;
        } finally {
            $pdo->exec(sprintf('PRAGMA busy_timeout = %d', (int) ceil($this->options->busyTimeout * 1000)));
        }
    }

    /**
     * The failure of a write that waited the whole busy timeout for the lock.
     */
    public function lockedTooLong(): StoreUnavailableException
    {
        return new StoreUnavailableException($this->explain(new \RuntimeException('database is locked'), 5));
    }

    /**
     * Rolls back what is open and, unless the failure was a lock held elsewhere (which passes by
     * itself), drops the connection so that the next use opens the file afresh.
     */
    public function failed(\Throwable $error): StoreUnavailableException
    {
        $pdo = $this->pdo;
        if ($pdo !== null && $pdo->inTransaction()) {
            try {
                $pdo->rollBack();
            } catch (\Throwable) {
                // The connection is dropped below anyway.
            }
        }
        $code = $error instanceof \PDOException ? $error->errorInfo[1] ?? 0 : 0;
        $code = \is_int($code) ? $code : 0;
        if ($code !== 5 && $code !== 6) {
            $this->close();
        } else {
            $this->resetStatements();
        }

        return $error instanceof StoreUnavailableException ? $error : new StoreUnavailableException($this->explain($error, $code), 0, $error);
    }

    /**
     * Resets every prepared statement: one whose step failed stays in that state until reset,
     * and using it again inside a later transaction fails with SQLITE_MISUSE.
     */
    public function resetStatements(): void
    {
        foreach ($this->statements as $statement) {
            $statement->closeCursor();
        }
    }

    /**
     * Makes the transactions committed so far durable (SqliteSynchronous::Full): syncs the
     * write-ahead log, and its directory when the log is new to this connection. Called after
     * every commit, before anything is acknowledged. A log that a checkpoint has reset is the same
     * file; one deleted and created anew (when every connection had closed it) is opened again.
     *
     * @throws StoreUnavailableException the sync failed: the transaction may or may not survive a power loss
     */
    public function synced(): void
    {
        if ($this->options->synchronous !== SqliteSynchronous::Full) {
            return;
        }
        $path = $this->path . '-wal';
        clearstatcache(true, $path);
        $inode = @fileinode($path);
        if ($inode === false) {
            throw new StoreUnavailableException("The SQLite store at {$this->path} committed, but its write-ahead log {$path} is gone, so the commit could not be synced; check that nothing removes the store's files while it runs.");
        }
        if ($this->log === null || $inode !== $this->logInode) {
            $this->closeLog();
            $log = @fopen($path, 'r');
            $directory = @fopen(\dirname($this->path), 'r');
            if ($log === false || $directory === false || !fsync($directory)) {
                throw new StoreUnavailableException("The SQLite store at {$this->path} committed, but could not open its write-ahead log and directory to sync them; check the permissions of " . \dirname($this->path) . '.');
            }
            fclose($directory);
            $this->log = $log;
            $this->logInode = $inode;
        }
        // As SQLite does on Linux: the data of the log, not its times (fsync would also commit
        // the file system's journal for the modification time).
        if (!fdatasync($this->log)) {
            $this->closeLog();

            throw new StoreUnavailableException("The SQLite store at {$this->path} committed, but syncing its write-ahead log failed (an I/O error or a full disk): the last writes may not survive a power loss; check the disk.");
        }
    }

    public function close(): void
    {
        $this->statements = [];
        $this->journalInsert = null;
        $this->pdo = null;
        $this->closeLog();
    }

    private function closeLog(): void
    {
        if ($this->log !== null) {
            fclose($this->log);
            $this->log = null;
        }
    }

    private function open(): \PDO
    {
        $directory = \dirname($this->path);
        if (!is_dir($directory)) {
            throw new StoreUnavailableException("The directory of the SQLite database {$this->path} does not exist; create it (nexus serve --data-dir creates it).");
        }
        $pdo = new \PDO('sqlite:' . $this->path, null, null, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]);
        $pdo->exec(sprintf('PRAGMA busy_timeout = %d', (int) ceil($this->options->busyTimeout * 1000)));
        $mode = self::value($pdo, 'PRAGMA journal_mode = WAL');
        if (!\is_string($mode) || strtolower($mode) !== 'wal') {
            throw new StoreUnavailableException("SQLite could not put {$this->path} in WAL mode (it reports '" . (\is_string($mode) ? $mode : '?') . "'); the store needs a writable file on a local file system.");
        }
        // Full: the log is synced by synced(), after the commit has released the write lock.
        $pdo->exec('PRAGMA synchronous = ' . SqliteSynchronous::Normal->value);
        $pdo->exec('PRAGMA cache_size = -' . $this->options->cacheSize * 1024);
        $pdo->exec('PRAGMA wal_autocheckpoint = ' . $this->options->walAutocheckpoint);
        $pdo->exec('PRAGMA journal_size_limit = ' . 64 * 1024 * 1024);
        $pdo->exec('PRAGMA foreign_keys = OFF');
        $version = self::value($pdo, 'PRAGMA user_version');
        $version = \is_int($version) ? $version : 0;
        if ($version > SqliteSchema::VERSION) {
            throw new StoreUnavailableException("{$this->path} was written by a newer Nexus (schema {$version}, this one knows " . SqliteSchema::VERSION . '); upgrade Nexus or use another data directory.');
        }
        if ($version < SqliteSchema::VERSION) {
            $pdo->exec('BEGIN IMMEDIATE');
            try {
                foreach (SqliteSchema::STATEMENTS as $statement) {
                    $pdo->exec($statement);
                }
                $pdo->exec('PRAGMA user_version = ' . SqliteSchema::VERSION);
                $pdo->exec('COMMIT');
            } catch (\Throwable $e) {
                $pdo->exec('ROLLBACK');

                throw $e;
            }
        }

        return $pdo;
    }

    /**
     * The first column of the first row of $sql.
     */
    public static function value(\PDO $pdo, string $sql): mixed
    {
        $statement = $pdo->query($sql);
        if ($statement === false) {
            throw new \PDOException("SQLite could not run: {$sql}");
        }
        $value = $statement->fetchColumn();
        $statement->closeCursor();

        return $value;
    }

    private function explain(\Throwable $error, int $code): string
    {
        $hint = match ($code) {
            5, 6 => sprintf('another connection (another worker or process) held a write lock for longer than the busy timeout of %.1f s; it passes by itself, or raise SqliteOptions::$busyTimeout', $this->options->busyTimeout),
            8 => 'the file or its directory is read-only; make both writable by this process (SQLite also writes the -wal and -shm files beside it)',
            13 => 'the disk (or the file system holding it) is full; free space',
            11, 26 => 'the file is corrupt or is not an SQLite database; restore it from a backup or move it away',
            10 => 'an I/O error reading or writing the file; check the disk',
            14 => 'SQLite cannot open the file; check that the path and its directory exist and are writable',
            default => 'see the cause',
        };

        return sprintf('The SQLite store at %s failed: %s (%s).', $this->path, $error->getMessage(), $hint);
    }
}
