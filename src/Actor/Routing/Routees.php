<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

use Nexus\Actor\ActorRef;

/**
 * A router's reply to GetRoutees: the routees it routes to right now, in routing order.
 */
final class Routees
{
    /**
     * @param list<ActorRef> $refs
     */
    public function __construct(public readonly array $refs) {}
}
