<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * A command got no reply within RedisConfig::$commandTimeout. Replies are matched in order, so the
 * connection cannot be used any more: it is closed and every other pending command fails too.
 */
final class RedisTimeoutException extends RedisConnectionException {}
