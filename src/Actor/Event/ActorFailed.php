<?php

declare(strict_types=1);

namespace Nexus\Actor\Event;

use Nexus\Actor\ActorRef;

/**
 * An actor's handler (or start) threw; its supervisor is deciding what happens next.
 */
final class ActorFailed
{
    public function __construct(
        public readonly ActorRef $actor,
        public readonly \Throwable $error,
        public readonly mixed $message,
    ) {}
}
