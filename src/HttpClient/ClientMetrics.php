<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\Metrics\Buckets;
use Nexus\Metrics\HistogramSeries;

/**
 * The process-wide durations of outgoing HTTP requests (OpenTelemetry http.client.request.duration,
 * seconds, Buckets::SECONDS), counted by every HttpClient made with `instrumented: true` (the
 * default), and read at scrape time by whoever serves metrics (the admin listener of
 * `nexus serve`, ServedObservability::httpClientMetrics()).
 *
 * One observation per request (each redirect hop, each retry counted within its request), from
 * request() to its response (the head for a streamed response, the whole body otherwise) or its
 * failure. Labels: http.request.method (the nine methods of the conventions, any other as
 * _OTHER), server.address, server.port, http.response.status_code ('' when there was no
 * response), error.type (the status code for 4xx and 5xx, the exception's class for a failure,
 * '' otherwise).
 *
 * On the request path: two hrtime() calls, one lookup in the array the client keeps per URL
 * (status code, method), one histogram observation; nothing allocated once a combination was
 * seen.
 * Bound: at most MAX_SERIES label combinations; past it a new combination counts into one
 * series with method _OTHER and server.address _other (the totals stay right).
 */
final class ClientMetrics
{
    public const MAX_SERIES = 256;
    public const KNOWN_METHODS = ['GET' => true, 'HEAD' => true, 'POST' => true, 'PUT' => true, 'DELETE' => true, 'CONNECT' => true, 'OPTIONS' => true, 'TRACE' => true, 'PATCH' => true];

    /** @var array<string, array<string, array<int|string, HistogramSeries>>> by method, origin, then status code or error type */
    private static array $series = [];
    /** @var list<array{list<string>, HistogramSeries}> the same series with their label values */
    private static array $rows = [];
    private static ?HistogramSeries $overflow = null;

    private function __construct() {}

    /**
     * Adds one request of $seconds: answered with $status, or failed with $error (status 0).
     */
    public static function observe(string $method, string $origin, string $host, int $port, int $status, ?\Throwable $error, float $seconds): void
    {
        self::series($method, $origin, $host, $port, $status, $error)->observe($seconds);
    }

    /**
     * The series of requests with these labels, made on first use (past MAX_SERIES combinations:
     * the overflow series). Keep it: the HTTP client caches it per URL.
     */
    public static function series(string $method, string $origin, string $host, int $port, int $status, ?\Throwable $error): HistogramSeries
    {
        $method = isset(self::KNOWN_METHODS[$method]) ? $method : '_OTHER';
        $outcome = $error === null ? $status : $error::class;

        return self::$series[$method][$origin][$outcome] ?? self::make($method, $origin, $host, $port, $status, $error);
    }

    /**
     * Every combination seen: label values (method, server.address, server.port, status code,
     * error type), counts per bucket, sum.
     *
     * @return list<array{list<string>, list<int>, float}>
     */
    public static function rows(): array
    {
        $rows = [];
        foreach (self::$rows as [$labels, $series]) {
            $rows[] = [$labels, $series->counts(), $series->sum()];
        }

        return $rows;
    }

    /**
     * The method as the conventions label it: one of KNOWN_METHODS, else _OTHER.
     *
     * @return non-empty-string
     */
    public static function method(string $method): string
    {
        return isset(self::KNOWN_METHODS[$method]) ? $method : '_OTHER';
    }

    private static function make(string $method, string $origin, string $host, int $port, int $status, ?\Throwable $error): HistogramSeries
    {
        $outcome = $error === null ? $status : $error::class;
        if (\count(self::$rows) >= self::MAX_SERIES) {
            if (self::$overflow === null) {
                self::$overflow = new HistogramSeries(Buckets::SECONDS);
                self::$rows[] = [['_OTHER', '_other', '0', '', ''], self::$overflow];
            }

            return self::$overflow;
        }
        $series = new HistogramSeries(Buckets::SECONDS);
        $errorType = $error !== null ? $error::class : ($status >= 400 ? (string) $status : '');
        self::$rows[] = [[$method, $host, (string) $port, $status === 0 ? '' : (string) $status, $errorType], $series];

        return self::$series[$method][$origin][$outcome] = $series;
    }
}
