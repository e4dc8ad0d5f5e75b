<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * Withdraws a RemoteWatch of the sender.
 *
 * @internal
 */
final class RemoteUnwatch
{
    public function __construct(public readonly string $path) {}
}
