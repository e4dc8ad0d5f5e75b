<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

use Nexus\Pool\Exception\PoolWaitQueueFullException;

/**
 * Every connection of the PgPool was busy and its wait queue was full (maxWaiters), so the caller
 * was refused at once: the database cannot keep up with the load. Shed load or raise maxSize.
 */
final class PgPoolWaitQueueFullException extends PoolWaitQueueFullException implements PgException {}
