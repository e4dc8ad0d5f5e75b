<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * Connecting to Redis (the TCP connect, then AUTH and SELECT) took longer than
 * RedisConfig::$connectTimeout. Check host and port, or raise connectTimeout if the server is
 * just slow.
 */
final class RedisConnectTimeoutException extends RedisConnectionException {}
