<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * From a watch relay: the actor at $path on the sending worker has stopped (or never lived there).
 *
 * @internal
 */
final class RemoteTerminated implements MeshControl
{
    public function __construct(public readonly string $path) {}
}
