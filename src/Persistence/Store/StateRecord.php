<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * The stored state of a durable-state actor at revision $revision (1 for the first write), as
 * read back or to be written. $writtenAt is in milliseconds since the Unix epoch (set by the
 * store when writing).
 */
final readonly class StateRecord
{
    public function __construct(
        public string $persistenceId,
        public int $revision,
        public Payload $state,
        public int $writtenAt = 0,
    ) {}
}
