<?php

declare(strict_types=1);

namespace Nexus\Pool\Internal;

use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;

/**
 * One caller waiting for a connection: its future, its acquire-timeout timer and its cancellation
 * subscription, all undone together when it is served, times out, is cancelled or the pool closes.
 *
 * @internal
 *
 * @template C of object
 */
final class PoolWaiter
{
    public int $timer = -1;
    public ?int $subscription = null;

    /**
     * @param Deferred<C> $deferred
     */
    public function __construct(
        public readonly Deferred $deferred,
        public readonly float $since,
        public readonly ?Cancellation $cancellation,
    ) {}
}
