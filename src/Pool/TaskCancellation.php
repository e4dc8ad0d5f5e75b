<?php

declare(strict_types=1);

namespace Nexus\Pool;

use Nexus\Runtime\Cancellation;
use Nexus\Runtime\CompositeCancellation;
use Nexus\Runtime\Loop;

/**
 * The cancellation an awaiting client call runs under: the one the caller passed, the one the
 * scheduler runs the current task under (an HTTP handler's time limit), or both. The database
 * clients hand it to the I/O, so that a wait that ends early also ends the work it waited for
 * (the pool slot, the query on the server) instead of leaving it running.
 */
final class TaskCancellation
{
    private function __construct() {}

    public static function of(Loop $loop, ?Cancellation $explicit): ?Cancellation
    {
        if (\Fiber::getCurrent() === null) {
            return $explicit;
        }
        $ambient = $loop->scheduler()->cancellation();
        if ($ambient === null || $ambient === $explicit) {
            return $explicit;
        }

        return $explicit === null ? $ambient : new CompositeCancellation($explicit, $ambient);
    }
}
