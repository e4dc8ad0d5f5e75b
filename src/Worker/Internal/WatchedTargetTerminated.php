<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

/**
 * What the watch relay receives when a local actor that remote workers watch has stopped.
 *
 * @internal
 */
final class WatchedTargetTerminated
{
    public function __construct(public readonly string $path) {}
}
