<?php

declare(strict_types=1);

namespace Nexus\Persistence\Query;

/**
 * An event as the read side sees it: decoded, with where it sits in its actor's history
 * ($sequenceNr) and in the global commit order ($offset, what a reader resumes from).
 * $writtenAt is in milliseconds since the Unix epoch.
 */
final readonly class EventEnvelope
{
    /**
     * @param list<string> $tags
     */
    public function __construct(
        public string $persistenceId,
        public int $sequenceNr,
        public int $offset,
        public object $event,
        public array $tags,
        public int $writtenAt,
    ) {}
}
