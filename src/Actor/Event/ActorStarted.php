<?php

declare(strict_types=1);

namespace Nexus\Actor\Event;

use Nexus\Actor\ActorRef;

final class ActorStarted
{
    public function __construct(public readonly ActorRef $actor) {}
}
