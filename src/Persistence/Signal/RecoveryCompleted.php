<?php

declare(strict_types=1);

namespace Nexus\Persistence\Signal;

use Nexus\Actor\Signal\Signal;

/**
 * A persistent actor has rebuilt its state and now takes commands (those stashed meanwhile
 * come first). $sequenceNr is the last event applied (the revision, for durable state).
 */
final readonly class RecoveryCompleted implements Signal
{
    public function __construct(
        public mixed $state,
        public int $sequenceNr,
    ) {}
}
