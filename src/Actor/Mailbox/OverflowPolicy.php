<?php

declare(strict_types=1);

namespace Nexus\Actor\Mailbox;

/**
 * What a bounded mailbox does with a message that arrives when it is full.
 */
enum OverflowPolicy
{
    /** The new message goes to dead letters. */
    case DropNewest;
    /** The oldest queued message goes to dead letters and the new one is queued. */
    case DropOldest;
    /** tell() throws MailboxFullException to the sender; nothing is queued. */
    case Reject;
    /** A sender inside a fiber waits until there is room; outside a fiber it is rejected. */
    case Backpressure;
}
