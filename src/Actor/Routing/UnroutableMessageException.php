<?php

declare(strict_types=1);

namespace Nexus\Actor\Routing;

use Nexus\Actor\Exception\ActorException;

/**
 * A routing logic cannot pick a routee for a message (a consistent-hashing router got a message
 * without a key, for example). A router catches it, logs a warning and sends the message to dead
 * letters instead of failing.
 */
final class UnroutableMessageException extends ActorException {}
