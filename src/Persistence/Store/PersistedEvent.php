<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * One event as read back from a journal, still encoded. $offset is its place in the global
 * commit order (what tag queries and projections resume from); $writtenAt is in milliseconds
 * since the Unix epoch.
 */
final readonly class PersistedEvent
{
    /**
     * @param list<string> $tags
     */
    public function __construct(
        public string $persistenceId,
        public int $sequenceNr,
        public int $writerEpoch,
        public int $offset,
        public string $name,
        public int $version,
        public PayloadFormat $format,
        public string $data,
        public array $tags,
        public int $writtenAt,
    ) {}
}
