<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

/**
 * The master's record of one worker process.
 *
 * @internal
 */
final class WorkerProcess
{
    public bool $ready = false;
    /** Asked to stop (reload, recycle, pool stop): its exit is no crash. */
    public bool $retiring = false;
    public ?int $readTimer = null;
    public ?int $controlWatcher = null;
    public string $buffer = '';
    /** Bytes of a stats reply still to read after its header line (-1: reading lines). */
    public int $expect = -1;
    public int $statsId = 0;
    public bool $statsTooLarge = false;
    /** @var array<int, \Closure(?string): void> stats queries waiting for this worker's answer, by id */
    public array $statsWaiters = [];

    /**
     * @param resource $control the master's end of the worker's channel
     */
    public function __construct(
        public readonly int $slot,
        public readonly int $generation,
        public readonly int $pid,
        public readonly mixed $control,
        public readonly float $startedAt,
        public readonly int $node = 0,
    ) {}
}
