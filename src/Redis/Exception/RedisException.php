<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * Implemented by every exception Nexus\Redis throws: catch this to handle them all.
 */
interface RedisException extends \Throwable {}
