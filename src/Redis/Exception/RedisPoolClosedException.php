<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

use Nexus\Pool\Exception\PoolClosedException;

/**
 * The RedisPool was closed: it hands out no more connections.
 */
final class RedisPoolClosedException extends PoolClosedException implements RedisException {}
