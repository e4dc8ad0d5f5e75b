<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * The events one command persisted for one persistence id: stored all together or not at all,
 * with sequence numbers $firstSequenceNr, $firstSequenceNr + 1, ... The write is conditional:
 * the journal refuses it when $firstSequenceNr - 1 is not the highest sequence number stored for
 * the id, or when the epoch stored with that event is above $writerEpoch.
 */
final readonly class AtomicWrite
{
    /**
     * @param list<Payload>      $events
     * @param list<list<string>> $tags   per event, in the order of $events; empty when no event has tags
     */
    public function __construct(
        public string $persistenceId,
        public int $firstSequenceNr,
        public int $writerEpoch,
        public array $events,
        public array $tags = [],
    ) {}

    public function lastSequenceNr(): int
    {
        return $this->firstSequenceNr + \count($this->events) - 1;
    }

    /**
     * @return list<string>
     */
    public function tagsOf(int $index): array
    {
        return $this->tags[$index] ?? [];
    }
}
