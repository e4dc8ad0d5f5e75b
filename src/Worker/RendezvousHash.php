<?php

declare(strict_types=1);

namespace Nexus\Worker;

/**
 * Highest-random-weight hashing: a key belongs to the worker whose (worker, key) hash is largest.
 * Every worker computes the same owner on its own, no table is shared, and when the worker count
 * changes only the keys of the added or removed worker move.
 */
final class RendezvousHash
{
    /**
     * @param int<1, max> $workers
     *
     * @return int<0, max> the owning worker, 0 to $workers - 1
     */
    public static function owner(string $key, int $workers): int
    {
        $owner = 0;
        $best = -1;
        for ($worker = 0; $worker < $workers; ++$worker) {
            $weight = (int) hexdec(hash('xxh32', $worker . "\0" . $key));
            if ($weight > $best) {
                $best = $weight;
                $owner = $worker;
            }
        }

        return $owner;
    }
}
