<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

use Nexus\Runtime\Future;

/**
 * Snapshots of persistent actors' states, by (persistence id, sequence number).
 */
interface SnapshotStore
{
    /**
     * Saves the snapshots in one transaction (one at the same id and sequence number is
     * replaced), then keeps only the $keep latest of each id.
     *
     * @param list<SnapshotRecord> $snapshots
     *
     * @return Future<list<int>> for each snapshot, the sequence number of the oldest one kept for
     *                           its id
     */
    public function saveSnapshots(array $snapshots, int $keep): Future;

    /**
     * The latest snapshot of an id at or below $maxSequenceNr, or null.
     *
     * @return Future<SnapshotRecord|null>
     */
    public function loadSnapshot(string $persistenceId, int $maxSequenceNr = \PHP_INT_MAX): Future;

    /**
     * @return Future<null>
     */
    public function deleteSnapshots(string $persistenceId, int $maxSequenceNr): Future;
}
