<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

/**
 * An order of the world benchmark: a customer's basket of (price, quantity) lines and a tier.
 */
final readonly class WorldOrder
{
    /**
     * @param list<array{float, int}> $items
     */
    public function __construct(
        public string $customer,
        public array $items,
        public string $tier,
    ) {}
}
