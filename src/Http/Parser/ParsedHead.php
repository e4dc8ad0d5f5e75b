<?php

declare(strict_types=1);

namespace Nexus\Http\Parser;

/**
 * A validated request head, shared between identical heads through the parser's cache.
 *
 * @internal
 */
final readonly class ParsedHead
{
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
    ) {}
}
