<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Worker;

/**
 * A message class some tests register and others deliberately do not.
 */
final class Order
{
    /**
     * @param list<array{string, float, int}> $items
     */
    public function __construct(
        public readonly string $customer,
        public readonly array $items,
        private readonly string $tier = 'gold',
    ) {}

    public function tier(): string
    {
        return $this->tier;
    }
}
