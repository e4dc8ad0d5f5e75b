<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\Message\AutoReceived;

/**
 * A timer's message on its way through the mailbox; stale ones (cancelled or replaced timers) are
 * dropped when they reach the head.
 *
 * @internal
 */
final class TimerFired implements AutoReceived
{
    public function __construct(
        public readonly string|int $key,
        public readonly int $generation,
        public readonly mixed $message,
    ) {}
}
