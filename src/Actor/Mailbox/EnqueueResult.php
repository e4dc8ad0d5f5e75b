<?php

declare(strict_types=1);

namespace Nexus\Actor\Mailbox;

/**
 * What happened to a message offered to a mailbox.
 */
enum EnqueueResult
{
    case Accepted;
    /** Queued, and the oldest message was pushed out (left in Mailbox::$message and $sender). */
    case AcceptedDroppingOldest;
    /** Not queued: the mailbox is full and drops new messages. */
    case DroppedNewest;
    /** Not queued: the mailbox is full and its policy is to refuse (Reject or Backpressure). */
    case Full;
}
