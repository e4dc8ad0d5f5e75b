<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

use Nexus\Redis\Protocol\RespLimit;

/**
 * The server sent a reply beyond one of the parser's limits (nesting depth, element count, bulk
 * length, line length): the connection was closed before buffering it, and the commands pending
 * on it failed with this. Raise the limit in RedisConfig if such replies are expected; otherwise
 * the peer is not a sane Redis server.
 */
final class RedisReplyLimitException extends RedisConnectionException
{
    public function __construct(
        string $message,
        public readonly RespLimit $limit,
        public readonly int $max,
        public readonly int $actual,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
    }
}
