<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * The cost of one stage of a message, in nanoseconds per operation.
 */
final readonly class HotPathStage
{
    /**
     * @param bool $derived computed from other rows (a difference), not timed on its own
     */
    public function __construct(
        public string $stage,
        public string $component,
        public float $nanoseconds,
        public bool $derived = false,
    ) {}
}
