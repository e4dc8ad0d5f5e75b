<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * Lifecycle and supervision traffic between actors; always handled before user messages.
 * Its fields are @readonly, not `readonly`: see ActorCell.
 *
 * @internal
 */
final class SystemMessage
{
    public function __construct(
        /** @readonly */
        public SystemMessageKind $kind,
        /** @readonly */
        public ?ActorCell $cell = null,
        /** @readonly */
        public ?\Throwable $error = null,
    ) {}
}
