<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * A RedisConfig value is out of range (port, database, timeouts).
 */
class InvalidRedisConfigException extends \InvalidArgumentException implements RedisException {}
