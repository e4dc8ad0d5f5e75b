<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

use Nexus\Pool\Exception\PoolTimeoutException;

/**
 * Every connection of a RedisPool stayed busy for longer than its wait timeout.
 */
final class RedisPoolTimeoutException extends PoolTimeoutException implements RedisException {}
