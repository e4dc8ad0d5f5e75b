<?php

declare(strict_types=1);

namespace Nexus\Actor\Signal;

/**
 * Delivered to the fresh incarnation after a restart, before it takes a message.
 */
final class PostRestart implements Signal
{
    public function __construct(public readonly \Throwable $reason) {}
}
