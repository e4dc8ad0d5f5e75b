<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

use Nexus\Pool\Exception\PoolWaitQueueFullException;

/**
 * Every connection of the RedisPool was busy and its wait queue was full (maxWaiters), so the
 * caller was refused at once: shed load or raise maxSize.
 */
final class RedisPoolWaitQueueFullException extends PoolWaitQueueFullException implements RedisException {}
