<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

/**
 * An order of the world benchmark: a customer's basket of (price, quantity) lines and a tier.
 */
final class WorldOrder
{
    /**
     * @param list<array{float, int}> $items
     */
    public function __construct(
        public readonly string $customer,
        public readonly array $items,
        public readonly string $tier,
    ) {}
}
