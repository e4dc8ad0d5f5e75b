<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * Monotonic wall time from hrtime(): never jumps backwards when the system time is changed.
 */
final class SystemClock implements Clock
{
    public function now(): float
    {
        return hrtime(true) / 1e9;
    }

    public function isVirtual(): bool
    {
        return false;
    }

    public function advanceTo(float $instant): void {}
}
