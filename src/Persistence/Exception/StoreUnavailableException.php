<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The store could not be reached or could not complete the operation: the database file is
 * locked, read-only, full or corrupt, the PostgreSQL server went away or timed out. Nothing of the
 * failed write was stored; try again later (a persistent actor restarts with backoff by itself).
 */
final class StoreUnavailableException extends PersistenceException {}
