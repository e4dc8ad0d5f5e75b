<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * Asks the watch relay of the worker hosting $path to report that actor's termination to the sender.
 *
 * @internal
 */
final class RemoteWatch
{
    public function __construct(public readonly string $path) {}
}
