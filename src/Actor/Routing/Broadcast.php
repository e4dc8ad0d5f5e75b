<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

/**
 * Tells any router to send $message to all of its routees, whatever its routing logic.
 */
final class Broadcast
{
    public function __construct(public readonly mixed $message) {}
}
