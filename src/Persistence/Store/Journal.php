<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\StoreUnavailableException;
use Nexus\Runtime\Future;

/**
 * The event journal: an append-only log per persistence id, keyed by (persistence id, sequence
 * number), plus a global offset in commit order across all ids.
 *
 * Promises every journal keeps (tests/Integration/Persistence/StoreConformanceTestCase checks
 * them on each store):
 * - writeEvents() stores a batch in one transaction; within it each AtomicWrite is all or
 *   nothing, and one refused write does not affect the others.
 * - Sequence numbers of an id are contiguous; a number is never reused, also after deletion.
 * - Offsets grow in commit order: a reader that has seen offset N will never later see a new
 *   event below N (the projection gap problem), so "everything after N" never skips one.
 * - Failures are typed: a refused write is a ConcurrentWriteException in its slot; a store that
 *   cannot commit fails the whole future with StoreUnavailableException, and then nothing of the
 *   batch was stored.
 */
interface Journal
{
    /**
     * @param list<AtomicWrite> $writes
     *
     * @return Future<list<PersistenceException|null>> one slot per write, in order: null when it
     *                                                 was stored, else why it was refused
     *                                                 (ConcurrentWriteException, or
     *                                                 PayloadEncodingException for a value this store
     *                                                 cannot keep)
     *
     * @throws StoreUnavailableException through the future
     */
    public function writeEvents(array $writes): Future;

    /**
     * Up to $max events of one id with $fromSequenceNr <= sequence number <= $toSequenceNr, in
     * order; deleted events are left out.
     *
     * @return Future<list<PersistedEvent>>
     */
    public function readEvents(string $persistenceId, int $fromSequenceNr, int $toSequenceNr, int $max): Future;

    /**
     * @return Future<JournalHead>
     */
    public function highestSequenceNr(string $persistenceId): Future;

    /**
     * Deletes the events of one id up to $toSequenceNr (typically those a snapshot covers). The
     * highest sequence number stays known, so it is never reused.
     *
     * @return Future<null>
     */
    public function deleteEvents(string $persistenceId, int $toSequenceNr): Future;

    /**
     * Up to $max events carrying $tag with an offset above $afterOffset, in offset (commit)
     * order; deleted events are left out.
     *
     * @return Future<list<PersistedEvent>>
     */
    public function readEventsByTag(string $tag, int $afterOffset, int $max): Future;

    /**
     * Releases connections and files; operations afterwards fail with StoreUnavailableException.
     */
    public function close(): void;
}
