<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * A message for a named actor or an entity passed on by a slot that does not own it under its
 * view: the sender's view was older, or the actor moved with the message still queued ($handOff:
 * it goes ahead of what the new owner received directly meanwhile). $hops bounds the passing on
 * when views disagree; $revision is the passing slot's view: a slot whose view is older waits for
 * the newer one instead of passing it back.
 *
 * @internal
 */
final class Relayed implements MeshControl
{
    public function __construct(
        public readonly mixed $message,
        public readonly int $hops,
        public readonly bool $handOff = false,
        public readonly int $revision = 0,
    ) {}
}
