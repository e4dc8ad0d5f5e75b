<?php

declare(strict_types=1);

namespace Nexus\Bench\Persistence;

/**
 * The event of the benchmark's counters: stored as {"by":1} under 'bench.incremented'.
 */
final readonly class Incremented
{
    public function __construct(public int $by = 1) {}
}
