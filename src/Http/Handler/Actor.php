<?php

declare(strict_types=1);

namespace Nexus\Http\Handler;

/**
 * Binds an ActorRef parameter to the actor with this name under /user ("counter" is
 * "/user/counter"), or to a full path starting with "/". Looked up on each request, so a
 * restarted actor is found; when none is running the request fails with 500.
 */
#[\Attribute(\Attribute::TARGET_PARAMETER)]
final readonly class Actor
{
    public function __construct(public string $name) {}
}
