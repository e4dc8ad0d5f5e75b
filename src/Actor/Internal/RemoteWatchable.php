<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\ActorRef;

/**
 * A reference to an actor in another process that can be watched: the process hosting it reports
 * its termination (or the loss of that process) with a RemoteDeathNotice.
 *
 * @internal implemented by the worker pool's RemoteActorRef
 */
interface RemoteWatchable extends ActorRef
{
    /**
     * Identifies the watched actor among all remote ones (worker and path).
     */
    public function watchKey(): string;

    public function watchFrom(LocalActorRef $watcher): void;

    public function unwatchFrom(LocalActorRef $watcher): void;
}
