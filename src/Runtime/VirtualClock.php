<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * A clock that only moves when told to: timers, backoff and timeouts become testable without sleeping.
 */
final class VirtualClock implements Clock
{
    public function __construct(private float $now = 0.0) {}

    public function now(): float
    {
        return $this->now;
    }

    public function isVirtual(): bool
    {
        return true;
    }

    public function advanceTo(float $instant): void
    {
        if ($instant > $this->now) {
            $this->now = $instant;
        }
    }

    public function advance(float $seconds): void
    {
        if ($seconds < 0) {
            throw new \InvalidArgumentException("A clock cannot move backwards: got {$seconds} s.");
        }
        $this->now += $seconds;
    }
}
