<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

use Random\Randomizer;

/**
 * Each message to a routee picked at random. Pass a Randomizer with a seeded engine
 * (new Randomizer(new Mt19937($seed))) for a repeatable sequence.
 */
final class RandomRouting implements RoutingLogic
{
    public function __construct(private readonly Randomizer $randomizer = new Randomizer()) {}

    public function select(mixed $message, array $routees): array
    {
        if ($routees === []) {
            return [];
        }

        return [$routees[$this->randomizer->getInt(0, \count($routees) - 1)]];
    }
}
