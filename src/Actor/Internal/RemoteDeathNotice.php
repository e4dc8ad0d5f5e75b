<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\Message\AutoReceived;
use Nexus\Actor\Remote\RemoteWatchable;

/**
 * A watched remote actor has stopped, or its process is gone: becomes Terminated for the watcher,
 * at most once, and only while it still watches.
 *
 * @internal
 */
final class RemoteDeathNotice implements AutoReceived
{
    public function __construct(public readonly RemoteWatchable $dead) {}
}
