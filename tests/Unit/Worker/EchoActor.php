<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Worker;

use Nexus\Actor\Actor;
use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;

/**
 * An entity written as an Actor class: echoes, and counts its starts and stops.
 */
final class EchoActor extends Actor
{
    public static int $preStarts = 0;
    public static int $postStops = 0;

    public function receive(mixed $message, ActorContext $ctx): ?Behavior
    {
        $ctx->reply($message);

        return null;
    }

    public function preStart(ActorContext $ctx): void
    {
        ++self::$preStarts;
    }

    public function postStop(ActorContext $ctx): void
    {
        ++self::$postStops;
    }
}
