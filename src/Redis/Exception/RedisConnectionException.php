<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * The connection to Redis could not be opened, or it broke or was closed. Commands that were
 * pending fail with it: they may or may not have run on the server.
 */
class RedisConnectionException extends \RuntimeException implements RedisException, TransientException {}
