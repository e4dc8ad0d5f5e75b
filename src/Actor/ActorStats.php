<?php

declare(strict_types=1);

namespace Nexus\Actor;

/**
 * Figures the actor layer keeps for observability, read at scrape time (the admin view turns
 * them into metrics): plain integers counted on the paths where they happen, so that nothing on
 * the message path calls a metrics registry.
 *
 * - askTimeouts: asks that got no reply in time (local asks; the worker mesh counts its own);
 * - while enabled (the admin view enables it): the messages processed by actors that stopped,
 *   by kind (live actors keep their own count, see ActorSystem::inspect()), and a sample of the
 *   time spent handling messages: SAMPLES_PER_SECOND times a second the next turn is timed (its
 *   wall time, waits in the handler included), and its time and message count are added to the
 *   actor's kind. sampledSeconds/sampledMessages is the mean time per message of that kind.
 *   What a turn pays while nothing is sampled: one boolean read.
 *
 * Bound: one entry per actor kind (kinds come from code, not data: an Actor class, a
 * Props::withKind() label or the place a behavior was written), at most MAX_KINDS; further kinds
 * count under '_other'.
 */
final class ActorStats
{
    /** Turns timed per second at most, while enabled. */
    public const SAMPLES_PER_SECOND = 20;
    public const MAX_KINDS = 200;
    public const OTHER = '_other';

    public int $askTimeouts = 0;
    /** Whether processing time is sampled and stopped actors' counts kept (see ActorSystem::enableStats()). */
    public bool $enabled = false;
    /** @var array<string, int> messages processed by actors that have stopped, by kind */
    public array $processedByStopped = [];
    /** @var array<string, float> */
    public array $sampledSeconds = [];
    /** @var array<string, int> */
    public array $sampledMessages = [];
    /** @var array<string, int> sampled turns by kind */
    public array $sampledTurns = [];

    /**
     * @internal called by the actor's run loop for a timed turn
     */
    public function sampled(string $kind, int $messages, float $seconds): void
    {
        if (!isset($this->sampledTurns[$kind]) && \count($this->sampledTurns) >= self::MAX_KINDS) {
            $kind = self::OTHER;
        }
        $this->sampledSeconds[$kind] = ($this->sampledSeconds[$kind] ?? 0.0) + $seconds;
        $this->sampledMessages[$kind] = ($this->sampledMessages[$kind] ?? 0) + $messages;
        $this->sampledTurns[$kind] = ($this->sampledTurns[$kind] ?? 0) + 1;
    }

    /**
     * @internal called when an actor that processed messages stops
     */
    public function retire(string $kind, int $processed): void
    {
        if (!isset($this->processedByStopped[$kind]) && \count($this->processedByStopped) >= self::MAX_KINDS) {
            $kind = self::OTHER;
        }
        $this->processedByStopped[$kind] = ($this->processedByStopped[$kind] ?? 0) + $processed;
    }
}
