<?php

declare(strict_types=1);

namespace Nexus\Http;

/**
 * An HTTP response to be serialized by {@see ResponseSerializer}. Header names keep the case
 * given; Content-Length, Transfer-Encoding and Connection are framing and always computed by the
 * serializer, so values set here for them are ignored.
 *
 * A streamed response ({@see stream()}) has no body but a producer that the server calls once the
 * head is sent; it is framed chunked for HTTP/1.1 and delimited by closing for HTTP/1.0.
 *
 * A 101 response ({@see switchingProtocols()}) carries the Upgrade that takes the connection over
 * once its head is written (a WebSocket route answers a handshake with one).
 */
final readonly class Response
{
    /**
     * @param array<string, string|list<string>> $headers
     * @param (\Closure(Server\ResponseStream): void)|null $producer set through {@see stream()}
     * @param Server\Upgrade|null $upgrade set through {@see switchingProtocols()}
     */
    public function __construct(
        public int $status = 200,
        public array $headers = [],
        public string $body = '',
        public ?\Closure $producer = null,
        public ?Server\Upgrade $upgrade = null,
    ) {
        if ($status < 100 || $status > 599) {
            throw new \InvalidArgumentException(\sprintf('Response status must be between 100 and 599, got %d.', $status));
        }
        foreach ($headers as $name => $value) {
            self::assertField((string) $name, $value);
        }
        if ($producer !== null && $body !== '') {
            throw new \InvalidArgumentException('A streamed response has no fixed body: write everything through the producer, or drop the producer.');
        }
        if ($upgrade !== null && $status !== 101) {
            throw new \InvalidArgumentException("Only a 101 Switching Protocols response carries an upgrade, not a {$status}.");
        }
    }

    /**
     * A 101 Switching Protocols response to an upgrade request: once the server has written its
     * head (with "Connection: Upgrade"), $upgrade takes the connection over. Middleware may add
     * fields to it (withHeader() keeps the upgrade).
     *
     * @param array<string, string|list<string>> $headers
     */
    public static function switchingProtocols(array $headers, Server\Upgrade $upgrade): self
    {
        return new self(101, $headers, '', null, $upgrade);
    }

    /**
     * A response whose body $producer writes piece by piece through ResponseStream::write(),
     * returning when it is done. It runs in the request's fiber once the responses before it on
     * the connection are sent, and write() waits while the client is slow to read. It is not
     * called for HEAD, 1xx, 204 and 304.
     *
     * @param array<string, string|list<string>> $headers
     * @param \Closure(Server\ResponseStream): void $producer
     */
    public static function stream(int $status, array $headers, \Closure $producer): self
    {
        return new self($status, $headers, '', $producer);
    }

    public function isStream(): bool
    {
        return $this->producer !== null;
    }

    /** @param array<string, string|list<string>> $headers */
    public static function text(string $body, int $status = 200, array $headers = []): self
    {
        return new self($status, $headers === [] ? ['Content-Type' => 'text/plain; charset=utf-8'] : ['Content-Type' => 'text/plain; charset=utf-8'] + $headers, $body);
    }

    /** @param array<string, string|list<string>> $headers */
    public static function html(string $body, int $status = 200, array $headers = []): self
    {
        return new self($status, ['Content-Type' => 'text/html; charset=utf-8'] + $headers, $body);
    }

    /**
     * @param array<string, string|list<string>> $headers
     *
     * @throws \JsonException when $data cannot be encoded
     */
    public static function json(mixed $data, int $status = 200, array $headers = []): self
    {
        $body = json_encode($data, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE);

        return new self($status, $headers === [] ? ['Content-Type' => 'application/json'] : ['Content-Type' => 'application/json'] + $headers, $body);
    }

    /** @param array<string, string|list<string>> $headers */
    public static function empty(int $status = 204, array $headers = []): self
    {
        return new self($status, $headers);
    }

    /**
     * A copy with the header set, replacing any field of the same name in any case.
     *
     * @param string|list<string> $value
     */
    public function withHeader(string $name, string|array $value): self
    {
        $headers = [];
        $lower = strtolower($name);
        foreach ($this->headers as $existing => $existingValue) {
            if (strtolower((string) $existing) !== $lower) {
                $headers[$existing] = $existingValue;
            }
        }
        $headers[$name] = $value;

        return new self($this->status, $headers, $this->body, $this->producer, $this->upgrade);
    }

    /** A copy with this status; a status other than 101 drops the upgrade. */
    public function withStatus(int $status): self
    {
        return new self($status, $this->headers, $this->body, $this->producer, $status === 101 ? $this->upgrade : null);
    }

    /** A copy with this fixed body; a streamed response becomes a plain one. */
    public function withBody(string $body): self
    {
        return new self($this->status, $this->headers, $body);
    }

    /** The field value, case-insensitive name, list values joined with ", "; null when absent. */
    public function header(string $name): ?string
    {
        $lower = strtolower($name);
        foreach ($this->headers as $existing => $value) {
            if (strtolower((string) $existing) === $lower) {
                return \is_array($value) ? implode(', ', $value) : $value;
            }
        }

        return null;
    }

    /** @param string|list<string> $value */
    private static function assertField(string $name, string|array $value): void
    {
        if (!FieldName::isValid($name)) {
            throw new \InvalidArgumentException(\sprintf('Response header name "%s" is not a valid token (RFC 9110 §5.1).', $name));
        }
        if (strpbrk(\is_string($value) ? $value : implode('', $value), "\r\n\0") !== false) {
            throw new \InvalidArgumentException(\sprintf('Response header "%s" has a CR, LF or NUL in its value; remove it (header injection).', $name));
        }
    }
}
