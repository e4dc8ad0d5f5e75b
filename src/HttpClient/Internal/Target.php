<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\Exception\InvalidRequestException;
use Nexus\Metrics\HistogramSeries;

/**
 * An absolute http(s) URL taken apart for sending: the origin (the pool's key), the host to
 * resolve and connect to, the Host header and the request target. Parsed URLs are remembered
 * (up to 512), since a client calls the same URLs again and again.
 *
 * @internal
 */
final class Target
{
    private const MAX_CACHED = 512;

    /** @var array<string, Target> */
    private static array $cache = [];

    /**
     * The ClientMetrics series requests to this URL counted into, by status code and method, so
     * that a request finds its series with one lookup and no call.
     *
     * @var array<int, array<string, HistogramSeries>>
     */
    public array $durations = [];

    private function __construct(
        public readonly string $url,
        public readonly bool $tls,
        /** Host name or IP address, IPv6 without brackets, lower case. */
        public readonly string $host,
        public readonly int $port,
        /** scheme://host:port, the key of the origin's connection pool. */
        public readonly string $origin,
        public readonly string $hostHeader,
        public readonly string $requestTarget,
    ) {}

    /**
     * @throws InvalidRequestException
     */
    public static function of(string $url): self
    {
        return self::$cache[$url] ?? self::parse($url);
    }

    /**
     * $location (a Location header) resolved against this URL.
     *
     * @throws InvalidRequestException
     */
    public function resolve(string $location): self
    {
        if (preg_match('~^[a-zA-Z][a-zA-Z0-9+.-]*://~', $location) === 1) {
            return self::of($location);
        }
        $scheme = $this->tls ? 'https' : 'http';
        if (str_starts_with($location, '//')) {
            return self::of("{$scheme}:{$location}");
        }
        $base = "{$scheme}://{$this->hostHeader}";
        if (str_starts_with($location, '/')) {
            return self::of($base . $location);
        }
        $path = strtok($this->requestTarget, '?');
        $directory = substr((string) $path, 0, (int) strrpos((string) $path, '/') + 1);
        if (str_starts_with($location, '?')) {
            return self::of($base . $path . $location);
        }

        return self::of($base . ($directory === '' ? '/' : $directory) . $location);
    }

    private static function parse(string $url): self
    {
        $parts = parse_url($url);
        if ($parts === false || !isset($parts['scheme'], $parts['host'])) {
            throw new InvalidRequestException("'{$url}' is not an absolute URL: give scheme and host, as in http://127.0.0.1:8080/path.");
        }
        $scheme = strtolower($parts['scheme']);
        if ($scheme !== 'http' && $scheme !== 'https') {
            throw new InvalidRequestException("Cannot request '{$url}': only http:// and https:// URLs are supported.");
        }
        if (isset($parts['user']) || isset($parts['pass'])) {
            throw new InvalidRequestException("The URL '{$url}' carries credentials: send them in an Authorization header instead (they would leak into logs and redirects).");
        }
        $host = strtolower($parts['host']);
        $bracketed = str_starts_with($host, '[');
        $bare = $bracketed ? substr($host, 1, -1) : $host;
        if ($bare === '' || strpbrk($bare, " \t\r\n\0/?#@\\") !== false || ($bracketed && filter_var($bare, \FILTER_VALIDATE_IP, \FILTER_FLAG_IPV6) === false)) {
            throw new InvalidRequestException("The URL '{$url}' has an invalid host.");
        }
        $tls = $scheme === 'https';
        $default = $tls ? 443 : 80;
        $port = $parts['port'] ?? $default;
        if ($port < 1) {
            throw new InvalidRequestException("The URL '{$url}' has an invalid port.");
        }
        $path = $parts['path'] ?? '/';
        if ($path === '') {
            $path = '/';
        }
        $requestTarget = isset($parts['query']) ? "{$path}?{$parts['query']}" : $path;
        if (strpbrk($requestTarget, " \t\r\n\0") !== false) {
            throw new InvalidRequestException("The URL '{$url}' has whitespace or control characters in its path or query: percent-encode them (rawurlencode()).");
        }
        $hostPart = $bracketed ? "[{$bare}]" : $bare;
        $hostHeader = $port === $default ? $hostPart : "{$hostPart}:{$port}";
        $target = new self($url, $tls, $bare, $port, "{$scheme}://{$hostPart}:{$port}", $hostHeader, $requestTarget);
        if (\count(self::$cache) >= self::MAX_CACHED) {
            self::$cache = [];
        }

        return self::$cache[$url] = $target;
    }
}
