<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * A bounded mailbox refused a message (overflow policy Reject, or Backpressure outside a fiber). The message was not enqueued and is not lost: the sender still has it.
 */
final class MailboxFullException extends ActorException {}
