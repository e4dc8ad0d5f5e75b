<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * The bytes from the server are not valid RESP, or a reply has a type the command cannot have
 * (usually the server is not Redis, or a proxy in between mangles the stream).
 */
final class RedisProtocolException extends \RuntimeException implements RedisException
{
    public static function unexpectedReply(string $command, string $expected, mixed $reply): self
    {
        return new self(sprintf('Redis answered %s with %s where %s was expected.', $command, get_debug_type($reply), $expected));
    }
}
