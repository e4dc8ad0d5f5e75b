<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

/**
 * A message that names its own key for ConsistentHashingRouting: messages with equal keys go to
 * the same routee for as long as the routee set stays the same.
 */
interface ConsistentHashable
{
    public function hashKey(): string|int;
}
