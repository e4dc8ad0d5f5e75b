<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

use Nexus\Actor\ActorRef;

/**
 * Picks the routees a message goes to. A router calls it for every message except its own
 * management messages and Broadcast, and only while it has at least one routee.
 *
 * Logics may keep state (a round-robin position, a cached hash ring); a router only calls them
 * from its own handler, so they need no locking, but one instance shared by several routers
 * shares that state too.
 */
interface RoutingLogic
{
    /**
     * @param list<ActorRef> $routees
     *
     * @return list<ActorRef> the routees that get the message; empty only when $routees is
     *
     * @throws UnroutableMessageException when this logic cannot route $message at all
     */
    public function select(mixed $message, array $routees): array;
}
