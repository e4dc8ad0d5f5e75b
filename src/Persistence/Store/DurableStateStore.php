<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Runtime\Future;

/**
 * The current state of durable-state actors, one row per persistence id with a revision that
 * grows by one with each write.
 */
interface DurableStateStore
{
    /**
     * @return Future<StateRecord|null>
     */
    public function loadState(string $persistenceId): Future;

    /**
     * Writes the states in one transaction. Each write is conditional: revision 1 only when the
     * id has no state yet, revision N only over revision N - 1; otherwise its slot holds a
     * ConcurrentWriteException and the others are still written.
     *
     * @param list<StateRecord> $states
     *
     * @return Future<list<PersistenceException|null>>
     */
    public function writeStates(array $states): Future;

    /**
     * Removes the state of an id (its revision restarts at 1).
     *
     * @return Future<null>
     */
    public function deleteState(string $persistenceId): Future;
}
