<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * The actor could not rebuild its state from the store (the cause is the previous exception); the
 * commands it had stashed meanwhile fail with this. It retries with backoff.
 */
final class RecoveryFailedException extends PersistenceException {}
