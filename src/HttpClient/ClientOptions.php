<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\InvalidOptionsException;

/**
 * The settings of an HttpClient; every bound it keeps is here, with its default.
 *
 * Timeouts (seconds; \INF turns one off, each has its own exception class, see TimeoutKind):
 * - connectTimeout (10): TCP connect plus TLS handshake of a new connection.
 * - headTimeout (30): from the request being fully sent until the whole response head arrived.
 * - idleTimeout (30): no byte sent or received for this long while the request body is written
 *   or the response body read (a streamed body the caller does not read is not idle).
 * - totalTimeout (60): the whole request, from request() until the last body byte, including the
 *   wait for a connection. A long-lived stream (a watch) wants \INF here.
 *
 * Pool (per origin, scheme://host:port):
 * - maxConnectionsPerOrigin (16) and maxConnections (256, all origins together).
 * - acquireTimeout (10): how long a request waits for a connection when all are busy, then
 *   Nexus\Pool\Exception\PoolTimeoutException; maxWaiters (10,000) requests may wait per origin,
 *   the next gets PoolWaitQueueFullException at once.
 * - keepAliveTimeout (30): an idle kept-alive connection is closed after this long.
 *
 * Response limits:
 * - maxHeadSize (64 KiB) and maxHeaderCount (128): HeadTooLargeException.
 * - maxBodySize (16 MiB): a buffered body beyond it fails with BodyTooLargeException (a streamed
 *   body is not held, so it has no such cap).
 * - maxDecodedSize (64 MiB): what a gzip/deflate body may decode to, streamed or not.
 * - streamWindow (256 KiB): bytes of a streamed body held for a reader that has not read them;
 *   beyond it the client stops reading the socket (TCP then slows the server down).
 *
 * Behaviour: decompress (true: sends Accept-Encoding: gzip, deflate and decodes), maxRedirects
 * (0: a 3xx is returned as it is; above 0 redirects are followed up to that many), userAgent, tls,
 * resolver (null: a SystemResolver, which blocks once per host name and TTL).
 *
 * Observability: instrumented (true) counts each request in ClientMetrics
 * (http.client.request.duration) and, when it is sent from traced work, gives it a CLIENT span
 * and sends the trace on in `traceparent`/`tracestate`; false does neither (the OTLP exporter's
 * own client: its requests must never make spans of their own).
 */
final readonly class ClientOptions
{
    public function __construct(
        public float $connectTimeout = 10.0,
        public float $headTimeout = 30.0,
        public float $idleTimeout = 30.0,
        public float $totalTimeout = 60.0,
        public int $maxConnectionsPerOrigin = 16,
        public int $maxConnections = 256,
        public float $acquireTimeout = 10.0,
        public int $maxWaiters = 10_000,
        public float $keepAliveTimeout = 30.0,
        public int $maxHeadSize = 65_536,
        public int $maxHeaderCount = 128,
        public int $maxBodySize = 16_777_216,
        public int $maxDecodedSize = 67_108_864,
        public int $streamWindow = 262_144,
        public bool $decompress = true,
        public int $maxRedirects = 0,
        public string $userAgent = 'Nexus-HttpClient/1.0',
        public TlsOptions $tls = new TlsOptions(),
        public ?Resolver $resolver = null,
        public bool $instrumented = true,
    ) {
        foreach (['connectTimeout' => $connectTimeout, 'headTimeout' => $headTimeout, 'idleTimeout' => $idleTimeout, 'totalTimeout' => $totalTimeout, 'acquireTimeout' => $acquireTimeout, 'keepAliveTimeout' => $keepAliveTimeout] as $name => $seconds) {
            if (!($seconds > 0.0)) {
                throw new InvalidOptionsException("{$name} must be above zero seconds (\\INF for none), got {$seconds}.");
            }
        }
        if (is_infinite($acquireTimeout) || is_infinite($connectTimeout)) {
            throw new InvalidOptionsException('connectTimeout and acquireTimeout must be finite: a connect or a wait for a connection is always bounded.');
        }
        foreach (['maxConnectionsPerOrigin' => $maxConnectionsPerOrigin, 'maxConnections' => $maxConnections, 'maxHeadSize' => $maxHeadSize, 'maxHeaderCount' => $maxHeaderCount, 'maxBodySize' => $maxBodySize, 'maxDecodedSize' => $maxDecodedSize, 'streamWindow' => $streamWindow] as $name => $value) {
            if ($value < 1) {
                throw new InvalidOptionsException("{$name} must be at least 1, got {$value}.");
            }
        }
        if ($maxWaiters < 0 || $maxRedirects < 0) {
            throw new InvalidOptionsException("maxWaiters and maxRedirects cannot be negative, got {$maxWaiters} and {$maxRedirects}.");
        }
        if (preg_match('/[\x00-\x1F\x7F]/', $userAgent) === 1) {
            throw new InvalidOptionsException('The user agent cannot contain control characters (line breaks would inject headers).');
        }
    }
}
