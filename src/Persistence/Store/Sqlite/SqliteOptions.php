<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Sqlite;

/**
 * How the SQLite store opens its database. SQLite is a blocking driver: every statement runs on
 * the loop's thread, so these bounds are also how long the loop can stall.
 *
 * - $busyTimeout: how long a write waits for another connection's (another worker's) write
 *   transaction before it fails with "database is locked" (the loop waits with it).
 * - $cacheSize: page cache per connection, in MiB.
 * - $walAutocheckpoint: WAL pages (4 KiB) written before SQLite copies them back into the main
 *   file. Larger means fewer, larger checkpoints: the journal's index pages are rewritten once per
 *   checkpoint instead of once per transaction. 10,000 pages is at most ~40 MiB of WAL.
 */
final readonly class SqliteOptions
{
    public function __construct(
        public SqliteSynchronous $synchronous = SqliteSynchronous::Full,
        public float $busyTimeout = 1.0,
        public int $cacheSize = 32,
        public int $walAutocheckpoint = 10_000,
    ) {
        if (!($busyTimeout > 0.0) || $busyTimeout > 60.0) {
            throw new \InvalidArgumentException("The SQLite busy timeout must be above 0 and at most 60 s, got {$busyTimeout}.");
        }
        if ($cacheSize < 1 || $walAutocheckpoint < 100) {
            throw new \InvalidArgumentException("The SQLite cache needs at least 1 MiB and the WAL checkpoint at least 100 pages, got {$cacheSize} MiB and {$walAutocheckpoint}.");
        }
    }
}
