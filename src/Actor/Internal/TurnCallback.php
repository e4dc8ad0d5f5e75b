<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Message\AutoReceived;

/**
 * A callback queued by ActorContext::runOnTurn(): run on the actor's turn when it reaches the
 * head of the mailbox, with $message as the message being handled. Dropped without a dead letter
 * when the actor stops first: whoever queued it learns that from the actor's lifecycle.
 *
 * @internal
 */
final class TurnCallback implements AutoReceived
{
    /**
     * @param \Closure(ActorContext): void $callback
     */
    public function __construct(
        public readonly \Closure $callback,
        public readonly mixed $message,
    ) {}
}
