<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Actor\Routing\Internal\Router;
use Nexus\Actor\Supervision\SupervisorStrategy;

/**
 * Routers: actors that pass each message on to one or more routees chosen by a RoutingLogic,
 * keeping its original sender, so that a routee's reply (an ask's too) goes straight back to
 * whoever sent to the router.
 *
 * Every router also understands Broadcast (to all routees) and GetRoutees (replies Routees). It
 * watches its routees and drops those that terminate. A message it has no routee for goes to
 * dead letters (reason NoRecipient). PoisonPill and Kill act on the router itself; wrap them in
 * Broadcast to reach the routees.
 */
final class Routers
{
    /**
     * A router that starts $size routees from $routeeProps as its own children (/router/$N) and
     * supervises them with $strategy (by default the system's default strategy, which restarts a
     * failing routee). A routee that stops for good is dropped; the router stops with the last one.
     */
    public static function pool(int $size, Props $routeeProps, RoutingLogic $logic, ?SupervisorStrategy $strategy = null): Props
    {
        if ($size < 1) {
            throw new \InvalidArgumentException("A pool router needs at least 1 routee, got {$size}.");
        }
        $props = Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($size, $routeeProps, $logic): Behavior {
            $routees = [];
            for ($i = 0; $i < $size; ++$i) {
                $routee = $ctx->spawn($routeeProps);
                $ctx->watch($routee);
                $routees[] = $routee;
            }

            return Behavior::receive((new Router($routees, $logic, stopWhenEmpty: true))->receive(...));
        }));

        return $strategy === null ? $props : $props->withSupervisor($strategy);
    }

    /**
     * A router over existing actors. It does not supervise them; it drops those that terminate
     * and keeps running without any, sending what it gets to dead letters.
     *
     * @param list<ActorRef> $routees
     */
    public static function group(array $routees, RoutingLogic $logic): Props
    {
        $refs = [];
        foreach ($routees as $index => $routee) {
            // @phpstan-ignore instanceof.alwaysTrue (callers without static analysis can pass anything)
            if (!$routee instanceof ActorRef) {
                throw new \InvalidArgumentException(sprintf(
                    'A group router routes to ActorRefs only; routee %s is %s.',
                    var_export($index, true),
                    get_debug_type($routee),
                ));
            }
            $refs[] = $routee;
        }

        return Props::fromBehavior(Behavior::setup(static function (ActorContext $ctx) use ($refs, $logic): Behavior {
            foreach ($refs as $routee) {
                $ctx->watch($routee);
            }

            return Behavior::receive((new Router($refs, $logic, stopWhenEmpty: false))->receive(...));
        }));
    }
}
