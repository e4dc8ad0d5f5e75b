<?php

declare(strict_types=1);

namespace Nexus\Actor\Internal;

/**
 * Marks that the message an actor handles is the one its run loop took from its mailbox last
 * (the mailbox's lastTaken() and lastTakenSender()): the loop then writes nothing per message.
 * See ActorCell::run() and pin().
 *
 * @internal
 */
enum TakenFromMailbox
{
    case Instance;
}
