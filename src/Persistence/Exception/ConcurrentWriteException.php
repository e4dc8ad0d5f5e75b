<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * Another writer got there first: the sequence number (or durable-state revision) this write
 * expected was taken, or a newer writer epoch has written to the same persistence id. The actor
 * that gets it stops, and its pending commands fail with it: its view of the history is stale.
 */
final class ConcurrentWriteException extends PersistenceException {}
