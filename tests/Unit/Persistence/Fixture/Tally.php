<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Persistence\Fixture;

/**
 * A state class for snapshot tests.
 */
final readonly class Tally
{
    /**
     * @param list<int> $amounts
     */
    public function __construct(public int $total = 0, public array $amounts = []) {}

    public function add(int $amount): self
    {
        return new self($this->total + $amount, [...$this->amounts, $amount]);
    }
}
