<?php

declare(strict_types=1);

namespace Nexus\Bench\Workers;

/**
 * An order of the world benchmark: a customer's basket of (price, quantity) lines and a tier.
 * Order $i of a run is `new WorldOrder("c{$i}", $baskets[$i & 63], WorldOrder::TIERS[$i & 3])`
 * with $baskets = WorldOrder::baskets(), the same in every benchmark that sends orders (the
 * world benchmark, bench-mesh); the senders build them inline, a call per order would weigh on
 * what they measure.
 */
final readonly class WorldOrder
{
    public const TIERS = ['gold', 'silver', 'standard', 'standard'];

    /**
     * @param list<array{float, int}> $items
     */
    public function __construct(
        public string $customer,
        public array $items,
        public string $tier,
    ) {}

    /**
     * The 64 baskets of a run, of 1 to 5 lines each.
     *
     * @return list<list<array{float, int}>>
     */
    public static function baskets(): array
    {
        $baskets = [];
        for ($b = 0; $b < 64; ++$b) {
            $items = [];
            for ($line = 0; $line <= $b % 5; ++$line) {
                $items[] = [round(1.5 + $b * 0.75 + $line, 2), 1 + ($b + $line) % 4];
            }
            $baskets[] = $items;
        }

        return $baskets;
    }
}
