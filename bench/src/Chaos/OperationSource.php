<?php

declare(strict_types=1);

namespace Nexus\Bench\Chaos;

/**
 * Picks the next operation: half of them increment one of the counters, the rest store a unique
 * id in PostgreSQL or Redis (only in those that run). Seeded, so a campaign can be repeated.
 */
final class OperationSource
{
    private int $next = 0;
    private readonly \Random\Randomizer $random;

    /**
     * @param list<OperationKind> $stores the kinds besides Counter that can be sent
     */
    public function __construct(private readonly int $counters, private readonly array $stores, int $seed)
    {
        $this->random = new \Random\Randomizer(new \Random\Engine\Mt19937($seed));
    }

    public static function counterName(int $index): string
    {
        return \sprintf('c%02d', $index);
    }

    public function next(): Operation
    {
        $id = ++$this->next;
        if ($this->stores === [] || $this->random->getInt(0, 1) === 0) {
            return new Operation(OperationKind::Counter, self::counterName($this->random->getInt(0, $this->counters - 1)));
        }

        return new Operation($this->stores[$this->random->getInt(0, \count($this->stores) - 1)], "op{$id}");
    }

    /**
     * @return list<string>
     */
    public function counterNames(): array
    {
        return array_map(self::counterName(...), range(0, $this->counters - 1));
    }
}
