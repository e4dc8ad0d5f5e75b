<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * A persistence id, tag or projection name is empty, too long, or holds a NUL byte.
 */
final class InvalidPersistenceIdException extends PersistenceException {}
