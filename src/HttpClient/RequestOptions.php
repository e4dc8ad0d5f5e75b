<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\InvalidOptionsException;

/**
 * Per-request settings; null takes the client's (ClientOptions) value.
 *
 * - stream: the future settles once the response head has arrived, and the body is read piece by
 *   piece from ClientResponse::stream() (with backpressure); otherwise it settles with the whole
 *   body buffered, up to maxBodySize.
 * - headTimeout, idleTimeout, totalTimeout: as in ClientOptions (\INF: none).
 * - maxBodySize, decompress, maxRedirects: as in ClientOptions.
 */
final readonly class RequestOptions
{
    public function __construct(
        public bool $stream = false,
        public ?float $headTimeout = null,
        public ?float $idleTimeout = null,
        public ?float $totalTimeout = null,
        public ?int $maxBodySize = null,
        public ?bool $decompress = null,
        public ?int $maxRedirects = null,
    ) {
        foreach (['headTimeout' => $headTimeout, 'idleTimeout' => $idleTimeout, 'totalTimeout' => $totalTimeout] as $name => $seconds) {
            if ($seconds !== null && !($seconds > 0.0)) {
                throw new InvalidOptionsException("{$name} must be above zero seconds (\\INF for none), got {$seconds}.");
            }
        }
        if (($maxBodySize !== null && $maxBodySize < 1) || ($maxRedirects !== null && $maxRedirects < 0)) {
            throw new InvalidOptionsException('maxBodySize must be at least 1 and maxRedirects at least 0.');
        }
    }
}
