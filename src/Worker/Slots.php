<?php

declare(strict_types=1);

namespace Nexus\Worker;

/**
 * Slot numbers: a slot is one worker of one node, numbered (node << 8) | worker, so one integer
 * names it across a cluster and travels cheaply as a sender's address. A pool without a cluster
 * is node 0, whose slots are its worker numbers 0 to 255. In a cluster a node's number is the
 * etcd revision that registered it, so a restarted node (a new incarnation) has new slots and
 * nothing addressed to the old ones reaches it.
 */
final class Slots
{
    /** Workers per node at most (PoolOptions allows 256). */
    public const WORKERS = 256;

    private function __construct() {}

    public static function id(int $node, int $worker): int
    {
        return ($node << 8) | $worker;
    }

    public static function node(int $slot): int
    {
        return $slot >> 8;
    }

    public static function worker(int $slot): int
    {
        return $slot & 0xFF;
    }

    /**
     * For logs: "worker 1", or "worker 1 of node 57" for a slot of a cluster.
     */
    public static function describe(int $slot): string
    {
        $node = $slot >> 8;

        return $node === 0 ? 'worker ' . ($slot & 0xFF) : 'worker ' . ($slot & 0xFF) . " of node {$node}";
    }
}
