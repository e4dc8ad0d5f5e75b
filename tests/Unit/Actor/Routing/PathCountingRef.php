<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Actor\Routing;

use Nexus\Actor\ActorRef;
use Nexus\Runtime\Future;

/**
 * A routee that only has a path, counting how often it is asked for it: a hash ring reads every
 * routee's path when it is built, so the count shows whether it was rebuilt.
 */
final class PathCountingRef implements ActorRef
{
    public int $pathCalls = 0;

    public function __construct(private readonly string $path) {}

    public function path(): string
    {
        ++$this->pathCalls;

        return $this->path;
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        throw new \LogicException('A path-only routee receives no messages.');
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        throw new \LogicException('A path-only routee cannot be asked.');
    }
}
