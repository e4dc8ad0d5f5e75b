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
     * @param string               $path     for an ask: the recipient's path, what its timeout names
     * @param int|null             $worker   ... the recipient's slot, when known
     * @param float                $timeout  ... the ask's timeout
     * @param mixed                $message  ... and the message asked
     */
    public function __construct(
        public readonly ?Deferred $deferred,
        public readonly ?ActorRef $forwardTo,
        public ?int $timer,
        public readonly string $path = '',
        public readonly ?int $worker = null,
        public readonly float $timeout = 0.0,
        public readonly mixed $message = null,
    ) {}
}
