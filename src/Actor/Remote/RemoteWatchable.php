<?php

declare(strict_types=1);

namespace Nexus\Actor\Remote;

use Nexus\Actor\ActorRef;

/**
 * A reference to an actor in another process that a local actor can watch: the transport that
 * implements it learns of that actor's end (or of the loss of its process) and tells each
 * watcher through Endpoint::remoteTerminated().
 *
 * Implemented by the transports' refs (the worker mesh's RemoteActorRef); ActorContext::watch()
 * and unwatch() call it.
 */
interface RemoteWatchable extends ActorRef
{
    /**
     * Identifies the watched actor among all remote ones (its process and path).
     */
    public function watchKey(): string;

    public function watchFrom(Endpoint $watcher): void;

    public function unwatchFrom(Endpoint $watcher): void;
}
