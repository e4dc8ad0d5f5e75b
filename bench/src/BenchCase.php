<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * One benchmark. The runner calls run() for the warm-ups and the measured runs, and verify() after
 * each of them: a figure only counts when the work it claims to measure was really done.
 */
interface BenchCase
{
    /** The stable name results are keyed by, such as actor.throughput.single. */
    public function name(): string;

    /** The unit of the figure run() returns: msgs/s, us, B, ... */
    public function unit(): string;

    public function higherIsBetter(): bool;

    /** What is measured, in one line, for the report. */
    public function description(): string;

    /**
     * Runs the case once and returns its figure in unit(). $scale divides the counts of the full
     * case (1 = full size, 100 = the smoke run); each case keeps enough work to verify.
     */
    public function run(int $scale): float;

    /**
     * Checks what the last run() computed (message counts, final state, who is alive) and throws
     * BenchmarkFailure when it is not what the case claims to measure.
     */
    public function verify(): void;
}
