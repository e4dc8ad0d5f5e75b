<?php

declare(strict_types=1);

namespace Nexus\Bench;

/**
 * What a case is held against: the reference figure from the seed documents and our target.
 */
final readonly class Expectation
{
    public function __construct(
        public string $case,
        public string $unit,
        public float $reference,
        public string $source,
        public ?Target $target = null,
        public string $note = '',
    ) {}

    public function describeReference(): string
    {
        return Units::format($this->reference, $this->unit) . " ({$this->source})" . ($this->note === '' ? '' : "; {$this->note}");
    }
}
