<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Runtime\Loop;

/**
 * The timeouts of a system's local asks. Asks of the same length end in the order they were
 * made, so each length keeps its waiting asks in one list, oldest first, under one loop timer
 * armed for the oldest: an ask costs an entry added and removed, not a timer and a closure of
 * its own. The timer keeps the loop alive only while an ask of that length waits.
 *
 * @internal
 */
final class AskTimeouts
{
    /** @var array<array-key, AskTimeoutQueue> by length (as a string; PHP makes "5" the key 5) */
    private array $queues = [];
    private float $lastSeconds = -1.0;
    private ?AskTimeoutQueue $last = null;

    public function __construct(private readonly Loop $loop) {}

    /**
     * The list of asks that end $seconds after they are made.
     */
    public function queue(float $seconds): AskTimeoutQueue
    {
        if ($seconds === $this->lastSeconds && $this->last !== null) {
            return $this->last;
        }
        $seconds = max(0.0, $seconds);
        $this->lastSeconds = $seconds;

        return $this->last = $this->queues[(string) $seconds] ??= new AskTimeoutQueue($this->loop, $seconds);
    }

    /**
     * Asks waiting for a reply, over all lengths.
     */
    public function count(): int
    {
        $count = 0;
        foreach ($this->queues as $queue) {
            $count += $queue->count();
        }

        return $count;
    }
}
