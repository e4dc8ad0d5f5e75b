<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Message\Terminated;
use Nexus\Actor\Routing\Broadcast;
use Nexus\Actor\Routing\GetRoutees;
use Nexus\Actor\Routing\Routees;
use Nexus\Actor\Routing\RoutingLogic;
use Nexus\Actor\Routing\UnroutableMessageException;

/**
 * The message handler of a pool or group router: one per router incarnation, holding the
 * routees it watches.
 *
 * @internal built by Routers
 */
final class Router
{
    /**
     * @param list<ActorRef> $routees
     * @param bool $stopWhenEmpty stop the router once its last routee has terminated
     */
    public function __construct(
        private array $routees,
        private readonly RoutingLogic $logic,
        private readonly bool $stopWhenEmpty,
    ) {}

    public function receive(mixed $message, ActorContext $ctx): ?Behavior
    {
        if ($message instanceof Terminated) {
            return $this->removeRoutee($message->ref, $ctx);
        }
        if ($message instanceof GetRoutees) {
            $ctx->reply(new Routees($this->routees));

            return null;
        }
        if ($this->routees === []) {
            $this->deadLetter($message, $ctx);

            return null;
        }
        if ($message instanceof Broadcast) {
            $targets = $this->routees;
            $message = $message->message;
        } else {
            try {
                $targets = $this->logic->select($message, $this->routees);
            } catch (UnroutableMessageException $e) {
                // The message is at fault, not the router: restarting would not help.
                $ctx->log()->warning('{error} It went to dead letters.', ['error' => $e->getMessage(), 'exception' => $e]);
                $this->deadLetter($message, $ctx);

                return null;
            }
            if ($targets === []) {
                $this->deadLetter($message, $ctx);

                return null;
            }
        }
        foreach ($targets as $routee) {
            $ctx->forward($routee, $message);
        }

        return null;
    }

    private function removeRoutee(ActorRef $ref, ActorContext $ctx): ?Behavior
    {
        $remaining = array_values(array_filter($this->routees, static fn(ActorRef $routee): bool => $routee !== $ref));
        if (\count($remaining) === \count($this->routees)) {
            // Not one of ours: a routee of an earlier incarnation of this router, stopped by its restart.
            return null;
        }
        $this->routees = $remaining;
        if ($remaining === [] && $this->stopWhenEmpty) {
            $ctx->log()->info('The last routee of router {actor} has terminated; the router stops.', ['actor' => $ctx->path()]);

            return Behavior::stopped();
        }

        return null;
    }

    private function deadLetter(mixed $message, ActorContext $ctx): void
    {
        $ctx->system()->deadLetters->publish($message, $ctx->sender(), $ctx->path(), DeadLetterReason::NoRecipient);
    }
}
