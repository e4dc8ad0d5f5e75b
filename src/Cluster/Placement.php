<?php

declare(strict_types=1);

namespace Nexus\Cluster;

/**
 * Where a named actor or an entity lives: a pure function of the slots of a view and its key, by
 * rendezvous (highest-random-weight) hashing, so every node computes the same owner on its own.
 * When a slot is added only the keys it now wins move to it; when one is removed only its keys
 * move. Over the slots of a pool without a cluster (node 0: its worker numbers) it is the pool's
 * RendezvousHash.
 */
final class Placement
{
    private function __construct() {}

    /**
     * @param list<int> $slots
     *
     * @return int|null the owning slot; null when there is none
     */
    public static function owner(array $slots, string $key): ?int
    {
        $owner = null;
        $best = -1;
        foreach ($slots as $slot) {
            $weight = (int) hexdec(hash('xxh32', $slot . "\0" . $key));
            if ($weight > $best) {
                $best = $weight;
                $owner = $slot;
            }
        }

        return $owner;
    }
}
