<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * A message bound for another worker holds an object of a class that was not registered as a
 * message; nothing was sent.
 */
final class UnregisteredMessageClassException extends \InvalidArgumentException implements WorkerException {}
