<?php

declare(strict_types=1);

namespace Nexus\TestKit;

use Nexus\Actor\ActorContext;

/**
 * Something the probe actor does in its own context (watch, for example).
 *
 * @internal
 */
final class ProbeCommand
{
    /**
     * @param \Closure(ActorContext): void $command
     */
    public function __construct(public readonly \Closure $command) {}
}
