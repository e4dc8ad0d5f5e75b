<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Worker\Exception\PoolConfigurationException;
use Nexus\Worker\Internal\Mesh;

/**
 * How a worker pool runs.
 */
final class PoolOptions
{
    /**
     * @param int         $workers            worker processes (default: one per core)
     * @param string|null $host               where every worker accepts HTTP (SO_REUSEPORT); null: no listening socket
     * @param int         $port               0 picks a free port
     * @param float       $stopTimeout        seconds in-flight HTTP requests get after SIGTERM
     * @param float       $actorStopTimeout   seconds a worker's actors then get to stop before they are stopped hard
     * @param float       $readyTimeout       seconds a new worker gets to report ready before it is killed
     * @param int         $maxRequests        recycle a worker after this many requests (0: never)
     * @param int         $maxMemory          recycle a worker above this many bytes of memory (0: never)
     * @param float       $undeliveredTimeout seconds a message for an unreachable worker waits before it becomes a dead letter
     * @param int         $crashLoopCrashes   this many crashes of one slot ...
     * @param float       $crashLoopWindow    ... within this many seconds count as a crash loop: restarts back off
     * @param float       $maxRestartDelay    the longest back-off between restarts in a crash loop
     * @param float       $spin               seconds a worker polls before it sleeps on I/O (Loop::spinBeforeBlocking()):
     *                                        a reply from another worker is then seen without a wake-up
     */
    public function __construct(
        public readonly int $workers = 0,
        public readonly ?string $host = '127.0.0.1',
        public readonly int $port = 8080,
        public readonly float $stopTimeout = 10.0,
        public readonly float $readyTimeout = 10.0,
        public readonly int $maxRequests = 0,
        public readonly int $maxMemory = 0,
        public readonly float $undeliveredTimeout = 5.0,
        public readonly int $crashLoopCrashes = 5,
        public readonly float $crashLoopWindow = 10.0,
        public readonly float $maxRestartDelay = 5.0,
        public readonly ?string $runtimeDir = null,
        public readonly float $spin = 0.0001,
        public readonly float $actorStopTimeout = 5.0,
    ) {
        if ($workers < 0 || $workers > 256) {
            throw new PoolConfigurationException("The pool needs 1 to 256 workers (0 means one per core), got {$workers}.");
        }
        if ($port < 0 || $port > 65535) {
            throw new PoolConfigurationException("The port must be 0 to 65535, got {$port}.");
        }
        if ($maxRequests < 0 || $maxMemory < 0) {
            throw new PoolConfigurationException('maxRequests and maxMemory cannot be negative (0 turns recycling off).');
        }
        if ($spin < 0.0 || $spin > 0.01) {
            throw new PoolConfigurationException("spin must be 0 to 0.01 s (0 turns it off), got {$spin}.");
        }
        if ($stopTimeout < 0 || $actorStopTimeout < 0 || $readyTimeout <= 0 || $undeliveredTimeout <= 0) {
            throw new PoolConfigurationException('stopTimeout and actorStopTimeout must be >= 0, readyTimeout and undeliveredTimeout > 0 seconds.');
        }
    }

    /**
     * Seconds the master waits after SIGTERM before it kills a worker: longer than everything a
     * worker does to stop (requests, actors, the links' drain), with a margin for a loaded machine.
     */
    public function killTimeout(): float
    {
        return $this->stopTimeout + $this->actorStopTimeout + Mesh::DRAIN_TIMEOUT + 3.0;
    }

    /**
     * @return int<1, 256>
     */
    public function workerCount(): int
    {
        return max(1, min(256, $this->workers > 0 ? $this->workers : self::cores()));
    }

    public static function cores(): int
    {
        $info = @file_get_contents('/proc/cpuinfo');
        $count = \is_string($info) ? preg_match_all('/^processor\s*:/m', $info) : 0;

        return max(1, (int) $count);
    }
}
