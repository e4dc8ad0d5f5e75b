<?php

declare(strict_types=1);

namespace Nexus\Actor\Event;

/**
 * Why a message could not be delivered.
 */
enum DeadLetterReason: string
{
    /** The recipient had stopped, or stopped with the message still queued. */
    case RecipientTerminated = 'recipient terminated';
    /** A bounded mailbox was full and dropped it. */
    case MailboxFull = 'mailbox full';
    /** A reply to an ask that had already timed out or been answered. */
    case LateAskReply = 'late reply to an ask';
    /** reply() while handling a message that had no sender. */
    case NoSender = 'no sender to reply to';
    /** Sent to an address where no actor lives. */
    case NoRecipient = 'no such actor';
    /** Sent to an actor on another worker that stayed unreachable for the pool's delivery timeout. */
    case WorkerUnavailable = 'worker unavailable';
    /** The recipient's handler said it does not handle this message (Effect::unhandled()). */
    case Unhandled = 'not handled by the recipient';
    /** The recipient could not process it (a store failure, a full stash) and had nobody to tell; the log says why. */
    case Refused = 'refused by the recipient';
    /** Sent to another worker whose link broke before it confirmed delivery: it may or may not have arrived. */
    case WorkerLost = 'worker lost before confirming delivery';
    /** The recipient on another worker could not be started there (its factory threw, its id is not a valid name, its name is still taken). */
    case RecipientNotStarted = 'recipient could not be started';
    /** The link to another worker stayed congested (it reads more slowly than this one sends) past the wait, or the sender could not wait. */
    case LinkCongested = 'link to the worker congested';
    /** Larger, encoded, than a link between workers carries. */
    case TooLarge = 'message too large for a link between workers';
    /** Sent to a node of the cluster that left it (its lease expired: killed or cut off; or it left) before it confirmed delivery. */
    case NodeLost = 'node left the cluster';
    /** For a named actor or entity of a cluster that no node could take: this node has no view of the cluster (fenced: it cannot renew its lease), the views of the nodes disagreed, or its owner did not become ready in time. */
    case NotPlaced = 'no node could take it';
}
