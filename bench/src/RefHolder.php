<?php

declare(strict_types=1);

namespace Nexus\Bench;

use Nexus\Actor\ActorRef;

/**
 * A ref kept in a property, as a client that looked it up once keeps it.
 */
final readonly class RefHolder
{
    public function __construct(public ActorRef $ref) {}
}
