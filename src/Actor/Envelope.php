<?php

declare(strict_types=1);

namespace Nexus\Actor;

/**
 * A message on its way, with who sent it.
 */
final class Envelope
{
    public function __construct(
        public readonly mixed $message,
        public readonly ?ActorRef $sender = null,
    ) {}
}
