<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * RedisConfig::fromUri() got something that is not redis://[[user]:password@]host[:port][/db].
 */
final class InvalidRedisUriException extends InvalidRedisConfigException {}
