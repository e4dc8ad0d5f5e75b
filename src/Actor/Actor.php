<?php

declare(strict_types=1);

namespace Nexus\Actor;

/**
 * Base class for actors written as classes. The object is the actor's state; a restart creates a
 * new object from the Props. receive() returns null to keep going, or a Behavior to become
 * (Behavior::stopped() stops the actor).
 */
abstract class Actor
{
    abstract public function receive(mixed $message, ActorContext $ctx): ?Behavior;

    public function preStart(ActorContext $ctx): void {}

    public function postStop(ActorContext $ctx): void {}

    /**
     * Called on the failed instance before it is replaced. Its children are stopped afterwards by
     * the runtime.
     */
    public function preRestart(\Throwable $reason, ActorContext $ctx): void {}

    /**
     * Called on the new instance after a restart; by default it runs preStart().
     */
    public function postRestart(\Throwable $reason, ActorContext $ctx): void
    {
        $this->preStart($ctx);
    }
}
