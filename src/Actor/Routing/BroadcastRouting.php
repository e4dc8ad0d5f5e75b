<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

/**
 * Every message to every routee.
 */
final class BroadcastRouting implements RoutingLogic
{
    public function select(mixed $message, array $routees): array
    {
        return $routees;
    }
}
