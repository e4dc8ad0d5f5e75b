<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * An ask whose message was not delivered to an actor on another worker: that worker stayed
 * unreachable, the link to it stayed congested, the recipient could not be started there, or the
 * message was too large. It was certainly not handled; the message says why.
 */
final class NotDeliveredException extends \RuntimeException implements WorkerException, TransientException {}
