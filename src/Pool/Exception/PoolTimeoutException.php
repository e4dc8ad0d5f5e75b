<?php

declare(strict_types=1);

namespace Nexus\Pool\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * No connection of the pool became free within its acquire timeout. The message names the pool,
 * how long the caller waited and how busy the pool was. Raise maxSize or acquireTimeout, or hold
 * connections for less time.
 *
 * Not final: PgPoolTimeoutException and RedisPoolTimeoutException extend it.
 */
class PoolTimeoutException extends \RuntimeException implements PoolException, TransientException {}
