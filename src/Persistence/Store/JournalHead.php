<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * The highest sequence number stored for a persistence id (deleted events count: the number is
 * never reused) and the writer epoch stored with it; both 0 when nothing was ever written.
 */
final readonly class JournalHead
{
    public function __construct(
        public int $sequenceNr,
        public int $writerEpoch,
    ) {}
}
