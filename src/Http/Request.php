<?php

declare(strict_types=1);

namespace Nexus\Http;

use Nexus\Io\Connection;

/**
 * One parsed HTTP/1.x request. The parsed message is read-only; {@see $attributes} is the one
 * mutable part, deliberately, so later layers (router, middleware) can attach path parameters or a
 * request id without cloning on the hot path.
 */
final class Request
{
    /**
     * Per-request data set by later layers (path parameters, request id, ...). Mutable on purpose.
     *
     * @var array<string, mixed>
     */
    public array $attributes = [];

    /**
     * The template of the route that matched ('/hello/{name}'), set by the router; null before
     * routing or when no route matched. Bounded by the routes declared, unlike the path: what
     * metrics and logs should label a request with.
     */
    public ?string $routeTemplate = null;

    /**
     * The connection the request came on, set by the server (null for a request made otherwise,
     * e.g. from PSR-7): see clientAddress().
     *
     * @internal
     */
    public ?Connection $connection = null;

    /** @var array<int|string, mixed>|null */
    private ?array $queryParams = null;

    /**
     * @param string $method as sent, case-sensitive
     * @param string $target raw request-target
     * @param string $path raw (not percent-decoded) path; "*" for an asterisk-form OPTIONS request
     * @param string $query raw query string after "?", without the "?"
     * @param '1.0'|'1.1'|string $protocolVersion
     * @param array<string, list<string>> $headers keyed by lower-case field name
     * @param bool|null $keepAlive precomputed connection persistence; null derives it from the headers
     */
    public function __construct(
        // Private and never written after this (no setter): not readonly, because initializing a
        // readonly property takes PHP's slow path, about 120 instructions each, per request.
        private string $method,
        private string $target,
        private string $path,
        private string $query,
        private string $protocolVersion,
        private array $headers,
        private string $body = '',
        private ?bool $keepAlive = null,
    ) {}

    /**
     * The client's address as the socket sees it ('127.0.0.1:53412', '[::1]:53412'); null when
     * the request did not come over a connection or the socket is gone; unix:///path for a Unix
     * socket. Behind a proxy this is the proxy's address.
     */
    public function clientAddress(): ?string
    {
        $address = $this->connection?->remoteAddress();

        return $address !== null && str_starts_with($address, 'tcp://') ? substr($address, 6) : $address;
    }

    public function method(): string
    {
        return $this->method;
    }

    public function target(): string
    {
        return $this->target;
    }

    /** The raw path; percent-decoding is left to the router. */
    public function path(): string
    {
        return $this->path;
    }

    public function query(): string
    {
        return $this->query;
    }

    /**
     * The query string parsed with parse_str(), computed on first use.
     *
     * @return array<int|string, mixed>
     */
    public function queryParams(): array
    {
        if ($this->queryParams === null) {
            parse_str($this->query, $params);
            $this->queryParams = $params;
        }

        return $this->queryParams;
    }

    public function protocolVersion(): string
    {
        return $this->protocolVersion;
    }

    /** @return array<string, list<string>> keyed by lower-case field name */
    public function headers(): array
    {
        return $this->headers;
    }

    /** The field value, repeated fields joined with ", "; null when absent. */
    public function header(string $name): ?string
    {
        $values = $this->headers[strtolower($name)] ?? null;
        if ($values === null) {
            return null;
        }

        return \count($values) === 1 ? $values[0] : implode(', ', $values);
    }

    public function hasHeader(string $name): bool
    {
        return isset($this->headers[strtolower($name)]);
    }

    public function body(): string
    {
        return $this->body;
    }

    /**
     * Whether the connection stays open after this request (RFC 9112 §9.3): HTTP/1.1 unless
     * "Connection: close", HTTP/1.0 only with "Connection: keep-alive".
     */
    public function keepAlive(): bool
    {
        if ($this->keepAlive !== null) {
            return $this->keepAlive;
        }
        $connection = $this->headers['connection'] ?? null;
        if ($connection === null) {
            return $this->keepAlive = $this->protocolVersion === '1.1';
        }
        $tokens = ',' . str_replace([' ', "\t"], '', strtolower(implode(',', $connection))) . ',';

        return $this->keepAlive = !str_contains($tokens, ',close,')
            && ($this->protocolVersion === '1.1' || str_contains($tokens, ',keep-alive,'));
    }
}
