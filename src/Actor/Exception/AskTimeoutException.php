<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

use Nexus\Runtime\Exception\TimeoutException;

/**
 * No reply arrived within the timeout given to ask(). A reply that comes later goes to dead letters.
 */
final class AskTimeoutException extends TimeoutException {}
