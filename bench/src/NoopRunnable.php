<?php

declare(strict_types=1);

namespace Nexus\Bench;

use Nexus\Runtime\Runnable;

/**
 * A runnable that only counts its runs: the scheduler's own cost, without an actor.
 */
final class NoopRunnable implements Runnable
{
    public int $runs = 0;

    public function run(): void
    {
        ++$this->runs;
    }
}
