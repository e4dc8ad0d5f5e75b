<?php

declare(strict_types=1);

namespace Nexus\Actor\Event;

use Nexus\Actor\ActorRef;

/**
 * A message that could not be delivered, published on the event stream.
 */
final class DeadLetter
{
    public function __construct(
        public readonly mixed $message,
        public readonly ?ActorRef $sender,
        public readonly string $recipient,
        public readonly DeadLetterReason $reason,
    ) {}
}
