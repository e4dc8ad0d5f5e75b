<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Runtime\Future;

/**
 * The address of an actor: the only way to talk to it. Refs are cheap to pass around and stay
 * valid after the actor stopped (messages then go to dead letters).
 */
interface ActorRef
{
    /**
     * The actor's hierarchical path, such as /user/orders/$a.
     */
    public function path(): string;

    /**
     * Sends a message without waiting. Inside an actor the sender defaults to that actor.
     */
    public function tell(mixed $message, ?ActorRef $sender = null): void;

    /**
     * Sends a message and returns a future of the reply (ActorContext::reply()). The future fails
     * with AskTimeoutException when no reply arrives within $timeout seconds, or at once with
     * RecipientTerminatedException when the actor has already stopped.
     *
     * @return Future<mixed>
     */
    public function ask(mixed $message, float $timeout = 5.0): Future;
}
