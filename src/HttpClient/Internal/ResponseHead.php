<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

/**
 * A parsed response head and how its body is framed.
 *
 * @internal
 */
final class ResponseHead
{
    /** The body is as long as the Content-Length says ($length). */
    public const LENGTH = 0;
    /** Transfer-Encoding: chunked. */
    public const CHUNKED = 1;
    /** No framing: the body ends when the server closes the connection. */
    public const UNTIL_CLOSE = 2;
    /** No body at all (HEAD, 204, 304). */
    public const NONE = 3;

    /**
     * @param array<string, list<string>> $headers lower-case names, values in arrival order
     */
    public function __construct(
        public readonly int $status,
        public readonly string $reason,
        public readonly string $version,
        public readonly array $headers,
        public readonly int $framing,
        public readonly int $length,
        public readonly bool $keepAlive,
    ) {}
}
