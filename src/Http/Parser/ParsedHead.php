<?php

declare(strict_types=1);

namespace Nexus\Http\Parser;

use Nexus\Http\Request;

/**
 * A validated request head, shared between identical heads through the parser's cache.
 *
 * @internal
 */
final readonly class ParsedHead
{
    /**
     * The request of this head with an empty body, never handed out: a request without a body is
     * a clone of it, which copies its fields instead of running the constructor's typed
     * assignments one by one.
     */
    public Request $prototype;

    /**
     * @param array<string, list<string>> $headers
     * @param int $contentLength -1 when the body is chunked
     */
    public function __construct(
        public string $method,
        public string $target,
        public string $path,
        public string $query,
        public string $protocolVersion,
        public array $headers,
        public int $headerCount,
        public int $contentLength,
        public bool $expectContinue,
        public bool $keepAlive,
    ) {
        $this->prototype = new Request($method, $target, $path, $query, $protocolVersion, $headers, '', $keepAlive);
    }
}
