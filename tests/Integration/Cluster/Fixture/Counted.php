<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Cluster\Fixture;

/**
 * The event of the cluster tests' counters: who wrote it (the slot and the process), so a test
 * can read from the journal which owner wrote each increment.
 */
final readonly class Counted
{
    public function __construct(
        public int $slot,
        public int $pid,
    ) {}
}
