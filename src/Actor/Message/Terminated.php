<?php

declare(strict_types=1);

namespace Nexus\Actor\Message;

use Nexus\Actor\ActorRef;

/**
 * Sent, exactly once, to every actor that watches $ref when $ref has stopped.
 */
final class Terminated
{
    public function __construct(public readonly ActorRef $ref) {}
}
