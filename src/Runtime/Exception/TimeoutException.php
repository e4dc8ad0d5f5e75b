<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * Raised when waiting for a future took longer than the timeout given.
 */
class TimeoutException extends \RuntimeException implements TransientException {}
