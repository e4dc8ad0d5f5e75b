<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Runtime\Deferred;

/**
 * What waits at a /temp/g<generation>.<n> reply address: the future of a remote ask, or a local
 * non-actor sender (an ask's responder, a test probe) that a reply is passed on to.
 *
 * @internal
 */
final class PendingReply
{
    /**
     * @param Deferred<mixed>|null $deferred
     */
    public function __construct(
        public readonly ?Deferred $deferred,
        public readonly ?ActorRef $forwardTo,
        public ?int $timer,
    ) {}
}
