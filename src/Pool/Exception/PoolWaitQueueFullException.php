<?php

declare(strict_types=1);

namespace Nexus\Pool\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * Every connection was busy and maxWaiters callers were already waiting, so this caller was
 * refused at once instead of joining an unbounded queue. The system is overloaded: shed load, or
 * raise maxSize (or maxWaiters if the wait is expected).
 *
 * Not final: PgPoolWaitQueueFullException and RedisPoolWaitQueueFullException extend it.
 */
class PoolWaitQueueFullException extends \RuntimeException implements PoolException, TransientException {}
