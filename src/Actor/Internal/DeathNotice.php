<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

use Nexus\Actor\Message\AutoReceived;

/**
 * A watched actor's termination, queued behind whatever that actor sent before it stopped, so that
 * Terminated is the last message a watcher receives from it. Dropped if unwatched meanwhile.
 *
 * @internal
 */
final class DeathNotice implements AutoReceived
{
    public function __construct(public readonly ActorCell $dead) {}
}
