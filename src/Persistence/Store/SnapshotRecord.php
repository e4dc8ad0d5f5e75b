<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * The state of a persistent actor as of event $sequenceNr, encoded. $writtenAt is in
 * milliseconds since the Unix epoch (set by the store when saving).
 */
final readonly class SnapshotRecord
{
    public function __construct(
        public string $persistenceId,
        public int $sequenceNr,
        public Payload $state,
        public int $writtenAt = 0,
    ) {}
}
