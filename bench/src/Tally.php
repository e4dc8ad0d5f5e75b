<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * What a benchmark handler saw: how many messages and the sum of their sequence numbers, so that a
 * lost or duplicated message shows even when the count happens to match.
 */
final class Tally
{
    public int $count = 0;
    public int $sum = 0;

    /**
     * Throws unless exactly the sequence numbers 0 .. $messages - 1 were seen, each once.
     */
    public function expectSequence(string $case, int $messages): void
    {
        Check::same($case, 'messages handled', $messages, $this->count);
        Check::same($case, 'sum of the sequence numbers handled', intdiv($messages * ($messages - 1), 2), $this->sum);
    }
}
