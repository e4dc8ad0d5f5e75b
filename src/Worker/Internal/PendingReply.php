<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Runtime\Future;

/**
 * What waits at a /temp/g<generation>.<n> reply address: the future of a remote ask, or a local
 * non-actor sender (an ask's responder, a test probe) that a reply is passed on to.
 *
 * Made for every remote ask: its fields are plain, not readonly (a readonly field costs a slow
 * write when it is set), and the ask's future is settled here directly, with no Deferred.
 *
 * @internal
 */
final class PendingReply
{
    /** The local sender a reply is passed on to (set after construction: an ask writes no null). */
    public ?ActorRef $forwardTo = null;
    /** The address's own loop timer, when it has one. */
    public ?int $timer = null;

    /**
     * @param Future<mixed>|null $future  settled through Future::settle(), as a Deferred would
     * @param string             $path    for an ask: the recipient's path, what its timeout names
     * @param int|null           $worker  ... the recipient's slot, when known
     * @param float              $timeout ... the ask's timeout
     * @param mixed              $message ... and the message asked
     */
    public function __construct(
        public ?Future $future,
        public string $path = '',
        public ?int $worker = null,
        public float $timeout = 0.0,
        public mixed $message = null,
    ) {}
}
