<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * A command was malformed before it was sent (an empty command in a pipeline, an empty name).
 */
final class InvalidRedisCommandException extends \InvalidArgumentException implements RedisException {}
