<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

/**
 * Each message to the next routee in turn.
 */
final class RoundRobinRouting implements RoutingLogic
{
    private int $next = 0;

    public function select(mixed $message, array $routees): array
    {
        if ($routees === []) {
            return [];
        }
        $routee = $routees[$this->next % \count($routees)];
        $this->next = $this->next === \PHP_INT_MAX ? 0 : $this->next + 1;

        return [$routee];
    }
}
