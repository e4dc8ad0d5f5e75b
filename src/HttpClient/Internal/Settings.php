<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\RequestOptions;

/**
 * The settings one request runs with: the client's, overridden by its RequestOptions. A client
 * keeps one for requests without options, so the common case allocates none.
 *
 * @internal
 */
final class Settings
{
    public function __construct(
        public readonly bool $stream,
        public readonly float $headTimeout,
        public readonly float $idleTimeout,
        public readonly float $totalTimeout,
        public readonly int $maxBodySize,
        public readonly int $maxDecodedSize,
        public readonly bool $decompress,
        public readonly int $maxRedirects,
        public readonly int $streamWindow,
    ) {}

    public static function of(ClientOptions $client, ?RequestOptions $request = null): self
    {
        return new self(
            $request !== null && $request->stream,
            $request->headTimeout ?? $client->headTimeout,
            $request->idleTimeout ?? $client->idleTimeout,
            $request->totalTimeout ?? $client->totalTimeout,
            $request->maxBodySize ?? $client->maxBodySize,
            $client->maxDecodedSize,
            $request->decompress ?? $client->decompress,
            $request->maxRedirects ?? $client->maxRedirects,
            $client->streamWindow,
        );
    }
}
