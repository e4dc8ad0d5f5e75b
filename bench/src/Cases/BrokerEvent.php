<?php

declare(strict_types=1);

namespace Nexus\Bench\Cases;

/**
 * The event broker.publish publishes.
 */
final readonly class BrokerEvent
{
    public function __construct(public int $sequence) {}
}
