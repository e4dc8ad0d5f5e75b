<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * Lifecycle and supervision traffic between actors; always handled before user messages.
 *
 * @internal
 */
final class SystemMessage
{
    public function __construct(
        public readonly SystemMessageKind $kind,
        public readonly ?ActorCell $cell = null,
        public readonly ?\Throwable $error = null,
    ) {}
}
