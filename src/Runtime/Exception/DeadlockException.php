<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * Raised when top-level code waits for something that can never happen: the loop has no timer,
 * stream, signal or runnable work left that could settle it.
 */
final class DeadlockException extends \LogicException {}
