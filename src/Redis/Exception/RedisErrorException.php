<?php

declare(strict_types=1);

namespace Nexus\Redis\Exception;

/**
 * The server answered a command with an error reply ("-WRONGTYPE Operation against a key ...").
 * The connection is still fine; only this command failed.
 */
class RedisErrorException extends \RuntimeException implements RedisException
{
    /** Error codes that say the server cannot serve right now, not that the command was wrong. */
    private const TRANSIENT = ['LOADING' => true, 'BUSY' => true, 'TRYAGAIN' => true, 'MASTERDOWN' => true, 'CLUSTERDOWN' => true];

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
     *
     * @return self a RedisUnavailableException for LOADING, BUSY, TRYAGAIN, MASTERDOWN and CLUSTERDOWN
     */
    public static function fromReply(string $line): self
    {
        $space = strpos($line, ' ');
        $prefix = $space === false ? $line : substr($line, 0, $space);
        $detail = $space === false ? '' : substr($line, $space + 1);

        return isset(self::TRANSIENT[$prefix]) ? new RedisUnavailableException($prefix, $detail) : new self($prefix, $detail);
    }
}
