<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * Sent back to a remote asker when its question could not be delivered at the receiving worker:
 * why (the dead letter reason's value) and a sentence for the exception.
 *
 * @internal
 */
final class RemoteAskFailed
{
    public function __construct(
        public readonly string $detail,
        public readonly string $reason = '',
    ) {}
}
