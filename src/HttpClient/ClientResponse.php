<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

/**
 * A response: status, headers, and the body, buffered (body()) or streamed (stream()).
 *
 * Header names are lower case; a header sent several times has several values. When the client
 * decoded a gzip/deflate body, Content-Encoding and Content-Length are left out (they described
 * the encoded bytes).
 */
final class ClientResponse
{
    /**
     * @param array<string, list<string>> $headers
     *
     * @internal made by the client
     */
    public function __construct(
        private readonly int $status,
        private readonly string $reason,
        private readonly string $protocolVersion,
        private readonly array $headers,
        private readonly string $url,
        private readonly ?string $body,
        private readonly ?ResponseBody $stream,
        private readonly int $maxBodySize,
    ) {}

    public function status(): int
    {
        return $this->status;
    }

    public function reason(): string
    {
        return $this->reason;
    }

    /**
     * "1.1" or "1.0".
     */
    public function protocolVersion(): string
    {
        return $this->protocolVersion;
    }

    /**
     * The URL this response answered (the last one, after redirects).
     */
    public function url(): string
    {
        return $this->url;
    }

    /**
     * @return array<string, list<string>> lower-case name => values
     */
    public function headers(): array
    {
        return $this->headers;
    }

    /**
     * The header's values joined with ", ", or null when absent.
     */
    public function header(string $name): ?string
    {
        $values = $this->headers[strtolower($name)] ?? null;

        return $values === null ? null : implode(', ', $values);
    }

    /**
     * @return list<string>
     */
    public function headerValues(string $name): array
    {
        return $this->headers[strtolower($name)] ?? [];
    }

    public function isStreamed(): bool
    {
        return $this->stream !== null;
    }

    /**
     * The whole body. For a streamed response this reads (awaits) the rest of it, up to the
     * request's maxBodySize (BodyTooLargeException beyond).
     */
    public function body(): string
    {
        return $this->body ?? ($this->stream?->buffer($this->maxBodySize) ?? '');
    }

    /**
     * The body decoded as JSON (objects as arrays).
     *
     * @throws \JsonException when the body is not JSON
     */
    public function json(): mixed
    {
        return json_decode($this->body(), true, 512, \JSON_THROW_ON_ERROR);
    }

    /**
     * The body as a stream of pieces; for a buffered response, one that has all of it.
     */
    public function stream(): ResponseBody
    {
        return $this->stream ?? ResponseBody::complete($this->body ?? '');
    }
}
