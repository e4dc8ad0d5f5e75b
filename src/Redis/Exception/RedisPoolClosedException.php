<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * The RedisPool was closed: it hands out no more connections.
 */
final class RedisPoolClosedException extends \RuntimeException implements RedisException {}
