<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * Monotonic time source of a loop, in seconds.
 */
interface Clock
{
    public function now(): float;

    /**
     * Whether the loop may jump this clock forward instead of sleeping (true for virtual clocks).
     */
    public function isVirtual(): bool;

    /**
     * Moves a virtual clock forward to the given instant. A real clock ignores it.
     */
    public function advanceTo(float $instant): void;
}
