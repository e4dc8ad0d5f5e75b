<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Actor\Supervision\Backoff;

/**
 * The bounds of persistence in one process, and what happens at each:
 *
 * - $recoveryPageSize: events read per query during recovery; a long journal is read page by
 *   page, one page per actor turn, never at once.
 * - $maxEventsPerPersist: events one command may persist; more fails the command with
 *   TooManyEventsException and writes nothing.
 * - $stashCapacity: commands an actor keeps while it recovers or persists; one more fails to its
 *   asker (or becomes a dead letter) with StashFullException.
 * - $maxPendingWrites: writes waiting for the group commit; one more is refused at once with
 *   StoreOverloadedException.
 * - $maxEventsPerTransaction: events in one group commit transaction (a write is never split):
 *   the bound on how long one SQLite commit blocks the loop.
 * - $transactionsInFlight: group commit transactions an asynchronous store (PostgreSQL) may have
 *   in flight at once (a blocking store has one at a time anyway).
 * - $backoff: how a persistent actor waits before it recovers again after a store failure.
 */
final readonly class PersistenceSettings
{
    public Backoff $backoff;

    public function __construct(
        public int $recoveryPageSize = 1000,
        public int $maxEventsPerPersist = 1000,
        public int $stashCapacity = 1000,
        public int $maxPendingWrites = 10_000,
        public int $maxEventsPerTransaction = 2000,
        ?Backoff $backoff = null,
        public int $transactionsInFlight = 2,
    ) {
        foreach (['recoveryPageSize' => $recoveryPageSize, 'maxEventsPerPersist' => $maxEventsPerPersist, 'stashCapacity' => $stashCapacity, 'maxPendingWrites' => $maxPendingWrites, 'maxEventsPerTransaction' => $maxEventsPerTransaction, 'transactionsInFlight' => $transactionsInFlight] as $name => $value) {
            if ($value < 1) {
                throw new \InvalidArgumentException("PersistenceSettings::\${$name} must be at least 1, got {$value}.");
            }
        }
        $this->backoff = $backoff ?? new Backoff(0.2, 10.0);
    }
}
