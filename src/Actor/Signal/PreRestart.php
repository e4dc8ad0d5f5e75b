<?php

declare(strict_types=1);

namespace Nexus\Actor\Signal;

/**
 * Delivered to the failed incarnation before its children are stopped and it is replaced.
 */
final class PreRestart implements Signal
{
    public function __construct(public readonly \Throwable $reason) {}
}
