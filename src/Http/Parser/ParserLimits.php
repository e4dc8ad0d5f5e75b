<?php

declare(strict_types=1);

namespace Nexus\Http\Parser;

/**
 * Size limits enforced by {@see RequestParser}. Every limit is in bytes unless named otherwise.
 */
final readonly class ParserLimits
{
    public function __construct(
        /** Longest request line (method, target and version); longer answers 414 URI Too Long. */
        public int $maxRequestLineLength = 8192,
        /** Largest header block after the request line; larger answers 431. Also bounds chunked trailers. */
        public int $maxHeaderBytes = 16384,
        /** Most header fields in one request; more answers 431. Also bounds chunked trailers. */
        public int $maxHeaderCount = 100,
        /** Largest body (declared Content-Length or decoded chunked size); larger answers 413. */
        public int $maxBodyBytes = 8 * 1024 * 1024,
        /** Longest chunk-size line including chunk extensions; longer answers 400. */
        public int $maxChunkLineLength = 1024,
    ) {
        $values = [
            'maxRequestLineLength' => $maxRequestLineLength,
            'maxHeaderBytes' => $maxHeaderBytes,
            'maxHeaderCount' => $maxHeaderCount,
            'maxBodyBytes' => $maxBodyBytes,
            'maxChunkLineLength' => $maxChunkLineLength,
        ];
        foreach ($values as $name => $value) {
            if ($value < 1) {
                throw new \InvalidArgumentException(\sprintf('ParserLimits::$%s must be at least 1, got %d.', $name, $value));
            }
        }
    }
}
