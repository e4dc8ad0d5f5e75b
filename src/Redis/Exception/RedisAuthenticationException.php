<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * AUTH failed while connecting: the password (or user) in the RedisConfig is wrong, or the server
 * has no password set.
 */
final class RedisAuthenticationException extends RedisConnectionException {}
