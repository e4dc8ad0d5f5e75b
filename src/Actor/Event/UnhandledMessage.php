<?php

declare(strict_types=1);

namespace Nexus\Actor\Event;

use Nexus\Actor\ActorRef;

/**
 * A message an actor received but returned Behavior::unhandled() for.
 */
final class UnhandledMessage
{
    public function __construct(
        public readonly mixed $message,
        public readonly ?ActorRef $sender,
        public readonly ActorRef $recipient,
    ) {}
}
