<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Actor\Event\DeadLetterReason;

/**
 * A sender that stands for an ask waiting for its reply: a local ask's responder, or the reply
 * address of an asker on another worker. The actor runtime tells it when the message it waits on
 * became a dead letter, so that the ask fails at once instead of at its timeout; whoever keeps a
 * forwarding address for it learns when it is settled and frees that address.
 */
interface ReplyAddress extends ActorRef
{
    /**
     * The message this address waits on was not delivered to $recipient ($reason): fail the ask
     * now if the reason means no reply can come.
     */
    public function undeliverable(DeadLetterReason $reason, string $recipient): void;

    /**
     * Calls $then once the ask has its answer, has failed or has timed out (at once if it has);
     * never for an address whose ask is settled elsewhere (another worker's).
     *
     * @param \Closure(): void $then
     */
    public function whenSettled(\Closure $then): void;
}
