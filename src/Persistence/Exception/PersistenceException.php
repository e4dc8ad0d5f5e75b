<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The base of every persistence failure; each kind has its own subclass, whose message says what
 * to do next. A command that fails gets a CommandFailed reply naming the kind.
 */
abstract class PersistenceException extends \RuntimeException {}
