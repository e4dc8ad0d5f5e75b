<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * The server answered a command with an error reply ("-WRONGTYPE Operation against a key ...").
 * The connection is still fine; only this command failed.
 */
final class RedisErrorException extends \RuntimeException implements RedisException
{
    /**
     * @param string $prefix the error code, the first word of the reply (ERR, WRONGTYPE, NOAUTH, ...)
     * @param string $detail the rest of the reply after the code
     */
    public function __construct(
        public readonly string $prefix,
        public readonly string $detail,
    ) {
        parent::__construct("Redis replied with an error: {$prefix} {$detail}");
    }

    /**
     * @param string $line an error reply without the leading "-" and the trailing CRLF
     */
    public static function fromReply(string $line): self
    {
        $space = strpos($line, ' ');

        return $space === false ? new self($line, '') : new self(substr($line, 0, $space), substr($line, $space + 1));
    }
}
