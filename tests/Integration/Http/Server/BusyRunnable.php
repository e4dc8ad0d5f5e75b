<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Runtime\Runnable;
use Nexus\Runtime\Scheduler;

/**
 * A runnable that queues itself again each time it runs, while busy.
 */
final class BusyRunnable implements Runnable
{
    public bool $busy = true;

    public function __construct(private readonly Scheduler $scheduler)
    {
        $scheduler->schedule($this);
    }

    public function run(): void
    {
        if ($this->busy) {
            $this->scheduler->schedule($this);
        }
    }
}
