<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * An ask whose message had left for another worker when the link to it broke before that worker
 * confirmed it: it may or may not have been handled (at most once, never twice). Retry only if
 * handling it twice is harmless, or ask the actor what it knows first.
 */
final class DeliveryUnknownException extends \RuntimeException implements WorkerException, TransientException {}
