<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

use Nexus\Runtime\Future;

/**
 * Where projections keep how far they have read, in the same transaction as their own writes,
 * which makes a projection into the same database exactly-once.
 */
interface OffsetStore
{
    /**
     * The offset a projection has committed, 0 when it never ran.
     *
     * @return Future<int>
     */
    public function loadOffset(string $projection): Future;

    /**
     * Runs $work($transaction) and stores $offset for $projection, all in one transaction: when
     * $work throws (or its future fails) nothing of it is kept and the offset stays where it was.
     * What $transaction is depends on the store: a PDO for SQLite, a PgConnection for PostgreSQL,
     * the InMemoryStore itself.
     *
     * @template R
     *
     * @param \Closure(mixed): R $work
     *
     * @return Future<R>
     */
    public function commitOffset(string $projection, int $offset, \Closure $work): Future;
}
