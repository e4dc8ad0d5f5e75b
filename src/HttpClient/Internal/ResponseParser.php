<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\Exception\ConnectionLostException;
use Nexus\HttpClient\Exception\HeadTooLargeException;
use Nexus\HttpClient\Exception\MalformedResponseException;

/**
 * Incremental HTTP/1.1 response parser (RFC 9112), one per connection: begin() before each
 * response, feed() every chunk read, then head() until it gives the head and body() until it
 * returns null; isComplete() says when the message has ended, end() reports the peer's EOF.
 *
 * It works on one buffer with an offset: bytes are consumed by moving the offset, and the unread
 * rest is copied down only when more bytes arrive (that rest is at most one head or one chunk-size
 * line), so nothing is copied over and over. Body pieces are handed out as they arrive, never
 * collected here.
 *
 * Bounds: the head (status line, fields, final CRLF) at most $maxHeadSize bytes and
 * $maxHeaderCount fields (HeadTooLargeException); the status line is checked as soon as its line
 * ends, so a server that speaks something else fails at once; a chunk-size line at most 4 KiB;
 * trailers (checked, then dropped) at most $maxHeadSize bytes.
 *
 * Strict where framing is decided, since a lenient client can be made to read one response as two:
 * both Content-Length and Transfer-Encoding, differing or non-numeric Content-Length values, a
 * transfer coding other than chunked, an invalid chunk size or a chunk not followed by CRLF, a bare
 * CR or LF or a NUL in the head, obs-fold and whitespace before a colon are all
 * MalformedResponseException. Interim 1xx responses are skipped; 101 is refused.
 *
 * @internal
 */
final class ResponseParser
{
    private const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private const HEX = '0123456789abcdefABCDEF';
    private const MAX_CHUNK_LINE = 4096;
    private const MAX_NAMES = 512;

    private const CHUNK_SIZE = 0;
    private const CHUNK_DATA = 1;
    private const CHUNK_CRLF = 2;
    private const CHUNK_TRAILER = 3;

    /** @var array<string, string> header names seen, each to its lower-case form */
    private static array $names = [];

    private string $buffer = '';
    private int $pos = 0;
    /** Bytes after $pos already searched for the end of the head. */
    private int $scanned = 0;
    private bool $statusChecked = false;
    private bool $headRequest = false;
    private ?ResponseHead $head = null;
    private bool $complete = false;
    private int $remaining = 0;
    private int $chunkState = self::CHUNK_SIZE;
    private int $trailerBytes = 0;
    private bool $receivedAny = false;

    public function __construct(
        private readonly int $maxHeadSize,
        private readonly int $maxHeaderCount,
    ) {}

    /**
     * Expects a new response (to a HEAD request when $headRequest: it has no body).
     */
    public function begin(bool $headRequest): void
    {
        $this->headRequest = $headRequest;
        $this->head = null;
        $this->complete = false;
        $this->statusChecked = false;
        $this->scanned = 0;
        $this->remaining = 0;
        $this->chunkState = self::CHUNK_SIZE;
        $this->trailerBytes = 0;
        $this->receivedAny = $this->pos < \strlen($this->buffer);
    }

    public function feed(string $bytes): void
    {
        $this->receivedAny = true;
        if ($this->pos >= \strlen($this->buffer)) {
            $this->buffer = $bytes;
        } else {
            $this->buffer = ($this->pos === 0 ? $this->buffer : substr($this->buffer, $this->pos)) . $bytes;
        }
        $this->pos = 0;
    }

    /**
     * Whether any byte of the current response arrived (a connection that fails before that may
     * have been closed by the server while idle, and the request can be retried elsewhere).
     */
    public function receivedAny(): bool
    {
        return $this->receivedAny;
    }

    /**
     * Bytes fed but not consumed yet (after a complete response: bytes the server should not
     * have sent).
     */
    public function pending(): int
    {
        return \strlen($this->buffer) - $this->pos;
    }

    public function isComplete(): bool
    {
        return $this->complete;
    }

    /**
     * The head once it has fully arrived, else null.
     *
     * @throws MalformedResponseException
     * @throws HeadTooLargeException
     */
    public function head(): ?ResponseHead
    {
        if ($this->head !== null) {
            return $this->head;
        }
        while (true) {
            $length = \strlen($this->buffer);
            if (!$this->statusChecked) {
                $newline = strpos($this->buffer, "\n", $this->pos);
                if ($newline === false) {
                    if ($length - $this->pos > 1024) {
                        throw new MalformedResponseException('The server sent 1 KiB without ending a status line: it does not speak HTTP/1.x here.');
                    }

                    return null;
                }
                $this->checkStatusLine($newline);
                $this->statusChecked = true;
            }
            $end = strpos($this->buffer, "\r\n\r\n", $this->pos + max(0, $this->scanned - 3));
            if ($end === false) {
                $this->scanned = $length - $this->pos;
                if ($this->scanned > $this->maxHeadSize) {
                    throw new HeadTooLargeException("The response head is larger than {$this->maxHeadSize} bytes (maxHeadSize): the connection was closed. Raise maxHeadSize if the server is known to send such heads.");
                }

                return null;
            }
            if ($end + 4 - $this->pos > $this->maxHeadSize) {
                throw new HeadTooLargeException(\sprintf('The response head is %d bytes, more than %d (maxHeadSize): the connection was closed. Raise maxHeadSize if the server is known to send such heads.', $end + 4 - $this->pos, $this->maxHeadSize));
            }
            $block = substr($this->buffer, $this->pos, $end - $this->pos);
            $this->pos = $end + 4;
            $this->scanned = 0;
            $this->statusChecked = false;
            $head = $this->parseBlock($block);
            if ($head === null) {
                continue; // an interim 1xx response: the real one follows
            }
            $this->head = $head;
            if ($head->framing === ResponseHead::NONE || ($head->framing === ResponseHead::LENGTH && $head->length === 0)) {
                $this->complete = true;
            }
            $this->remaining = $head->length;

            return $head;
        }
    }

    /**
     * The next piece of the body that has arrived, or null when none is available now (or the
     * body is complete: see isComplete()).
     *
     * @throws MalformedResponseException
     */
    public function body(): ?string
    {
        if ($this->complete || $this->head === null) {
            return null;
        }
        $available = \strlen($this->buffer) - $this->pos;
        switch ($this->head->framing) {
            case ResponseHead::LENGTH:
                if ($available === 0) {
                    return null;
                }
                $take = min($available, $this->remaining);

                return $this->take($take);

            case ResponseHead::UNTIL_CLOSE:
                return $available === 0 ? null : $this->take($available);
        }

        return $this->chunk();
    }

    /**
     * The server closed the connection (EOF): ends a body framed by the close, fails anything else
     * that is incomplete.
     *
     * @throws ConnectionLostException
     */
    public function end(): void
    {
        if ($this->complete) {
            return;
        }
        if ($this->head === null) {
            throw new ConnectionLostException($this->receivedAny
                ? 'The server closed the connection in the middle of the response head.'
                : 'The server closed the connection without answering.');
        }
        if ($this->head->framing === ResponseHead::UNTIL_CLOSE) {
            $this->complete = true;

            return;
        }

        throw new ConnectionLostException($this->head->framing === ResponseHead::CHUNKED
            ? 'The server closed the connection in the middle of a chunked body (no last chunk): the response is incomplete.'
            : \sprintf('The server closed the connection %d bytes short of the %d-byte body it announced: the response is incomplete.', $this->remaining, $this->head->length));
    }

    private function take(int $length): string
    {
        if ($this->pos === 0 && $length === \strlen($this->buffer)) {
            $piece = $this->buffer;
            $this->buffer = '';
        } else {
            $piece = substr($this->buffer, $this->pos, $length);
            $this->pos += $length;
        }
        if ($this->head !== null && $this->head->framing === ResponseHead::LENGTH) {
            $this->remaining -= $length;
            if ($this->remaining === 0) {
                $this->complete = true;
            }
        }

        return $piece;
    }

    private function chunk(): ?string
    {
        while (true) {
            $available = \strlen($this->buffer) - $this->pos;
            switch ($this->chunkState) {
                case self::CHUNK_DATA:
                    if ($available === 0) {
                        return null;
                    }
                    $take = min($available, $this->remaining);
                    $piece = $this->take($take);
                    $this->remaining -= $take;
                    if ($this->remaining === 0) {
                        $this->chunkState = self::CHUNK_CRLF;
                    }

                    return $piece;

                case self::CHUNK_CRLF:
                    if ($available < 2) {
                        return null;
                    }
                    if ($this->buffer[$this->pos] !== "\r" || $this->buffer[$this->pos + 1] !== "\n") {
                        throw new MalformedResponseException('A chunk of the response body is not followed by CRLF: its size was wrong or the framing is broken.');
                    }
                    $this->pos += 2;
                    $this->chunkState = self::CHUNK_SIZE;

                    break;

                case self::CHUNK_SIZE:
                    $lineEnd = strpos($this->buffer, "\r\n", $this->pos);
                    if ($lineEnd === false) {
                        if ($available > self::MAX_CHUNK_LINE) {
                            throw new MalformedResponseException('A chunk-size line of the response is longer than ' . self::MAX_CHUNK_LINE . ' bytes.');
                        }

                        return null;
                    }
                    if ($lineEnd - $this->pos > self::MAX_CHUNK_LINE) {
                        throw new MalformedResponseException('A chunk-size line of the response is longer than ' . self::MAX_CHUNK_LINE . ' bytes.');
                    }
                    $line = substr($this->buffer, $this->pos, $lineEnd - $this->pos);
                    $semicolon = strpos($line, ';');
                    $hex = $semicolon === false ? $line : rtrim(substr($line, 0, $semicolon), " \t");
                    $digits = \strlen($hex);
                    if ($digits === 0 || $digits > 15 || strspn($hex, self::HEX) !== $digits || str_contains($line, "\n")) {
                        throw new MalformedResponseException(\sprintf('Invalid chunk size "%s" in the response body: expected hexadecimal digits.', addcslashes(substr($line, 0, 40), "\0..\37\177..\377")));
                    }
                    $this->pos = $lineEnd + 2;
                    $this->remaining = (int) hexdec($hex);
                    $this->chunkState = $this->remaining === 0 ? self::CHUNK_TRAILER : self::CHUNK_DATA;

                    break;

                default: // trailer fields, then the empty line that ends the message
                    $lineEnd = strpos($this->buffer, "\r\n", $this->pos);
                    if ($lineEnd === false) {
                        if ($this->trailerBytes + $available > $this->maxHeadSize) {
                            throw new HeadTooLargeException("The response trailers are larger than {$this->maxHeadSize} bytes (maxHeadSize).");
                        }

                        return null;
                    }
                    if ($lineEnd === $this->pos) {
                        $this->pos += 2;
                        $this->complete = true;

                        return null;
                    }
                    $this->trailerBytes += $lineEnd - $this->pos + 2;
                    if ($this->trailerBytes > $this->maxHeadSize) {
                        throw new HeadTooLargeException("The response trailers are larger than {$this->maxHeadSize} bytes (maxHeadSize).");
                    }
                    $colon = strpos($this->buffer, ':', $this->pos);
                    if ($colon === false || $colon >= $lineEnd || $colon === $this->pos) {
                        throw new MalformedResponseException('A trailer field of the response has no name or no colon.');
                    }
                    $this->pos = $lineEnd + 2;
            }
        }
    }

    private function checkStatusLine(int $newline): void
    {
        $length = $newline - $this->pos;
        if (
            $length < 13
            || $this->buffer[$newline - 1] !== "\r"
            || substr_compare($this->buffer, 'HTTP/1.', $this->pos, 7) !== 0
            || ($this->buffer[$this->pos + 7] !== '1' && $this->buffer[$this->pos + 7] !== '0')
            || $this->buffer[$this->pos + 8] !== ' '
            || strspn($this->buffer, '0123456789', $this->pos + 9, 3) !== 3
            || ($length > 13 && $this->buffer[$this->pos + 12] !== ' ')
        ) {
            throw new MalformedResponseException(\sprintf(
                'Malformed status line "%s": expected "HTTP/1.1 <3-digit status> <reason>" ending in CRLF.',
                addcslashes(substr($this->buffer, $this->pos, min($length, 80)), "\0..\37\177..\377"),
            ));
        }
    }

    private function parseBlock(string $block): ?ResponseHead
    {
        $lines = explode("\r\n", $block);
        $count = \count($lines);
        if (substr_count($block, "\n") !== $count - 1 || substr_count($block, "\r") !== $count - 1 || str_contains($block, "\0")) {
            throw new MalformedResponseException('The response head has a bare CR or LF, or a NUL byte: every line must end with CRLF.');
        }
        if ($count - 1 > $this->maxHeaderCount) {
            throw new HeadTooLargeException(\sprintf('The response head has %d header fields, more than %d (maxHeaderCount): the connection was closed.', $count - 1, $this->maxHeaderCount));
        }
        $statusLine = $lines[0];
        $version = $statusLine[7] === '1' ? '1.1' : '1.0';
        $status = (int) substr($statusLine, 9, 3);
        $reason = (string) substr($statusLine, 13);
        $headers = [];
        for ($i = 1; $i < $count; ++$i) {
            $line = $lines[$i];
            if ($line !== '' && ($line[0] === ' ' || $line[0] === "\t")) {
                throw new MalformedResponseException('The response folds a header over several lines (obs-fold), which HTTP/1.1 forbids.');
            }
            $colon = strpos($line, ':');
            if ($colon === false || $colon === 0) {
                throw new MalformedResponseException(\sprintf('Malformed header line "%s" in the response: expected "Name: value".', addcslashes(substr($line, 0, 80), "\0..\37\177..\377")));
            }
            $name = substr($line, 0, $colon);
            $lower = self::$names[$name] ?? self::name($name);
            $headers[$lower][] = trim(substr($line, $colon + 1), " \t");
        }
        if ($status < 200) {
            if ($status === 101) {
                throw new MalformedResponseException('The server switched protocols (101), which this client does not do: it never asks for an upgrade.');
            }

            return null;
        }
        $keepAlive = $version === '1.1';
        if (isset($headers['connection'])) {
            $tokens = strtolower(implode(',', $headers['connection']));
            if (str_contains($tokens, 'close')) {
                $keepAlive = false;
            } elseif (str_contains($tokens, 'keep-alive')) {
                $keepAlive = true;
            }
        }
        $te = $headers['transfer-encoding'] ?? null;
        $cl = $headers['content-length'] ?? null;
        if ($te !== null && $cl !== null) {
            throw new MalformedResponseException('The response has both Content-Length and Transfer-Encoding: its length is ambiguous (a request-smuggling shape), so it is refused.');
        }
        if ($this->headRequest || $status === 204 || $status === 304) {
            return new ResponseHead($status, $reason, $version, $headers, ResponseHead::NONE, 0, $keepAlive);
        }
        if ($te !== null) {
            $coding = strtolower(trim(implode(',', $te), " \t"));
            if ($coding !== 'chunked' || $version === '1.0') {
                throw new MalformedResponseException(\sprintf('The response uses Transfer-Encoding "%s"; this client reads only "chunked" (over HTTP/1.1).', addcslashes(substr(implode(',', $te), 0, 80), "\0..\37\177..\377")));
            }

            return new ResponseHead($status, $reason, $version, $headers, ResponseHead::CHUNKED, 0, $keepAlive);
        }
        if ($cl !== null) {
            return new ResponseHead($status, $reason, $version, $headers, ResponseHead::LENGTH, self::contentLength($cl), $keepAlive);
        }

        return new ResponseHead($status, $reason, $version, $headers, ResponseHead::UNTIL_CLOSE, 0, false);
    }

    /**
     * @param list<string> $values
     */
    private static function contentLength(array $values): int
    {
        $length = null;
        foreach ($values as $value) {
            foreach (explode(',', $value) as $item) {
                $item = trim($item, " \t");
                if ($item === '' || \strlen($item) > 18 || strspn($item, '0123456789') !== \strlen($item)) {
                    throw new MalformedResponseException(\sprintf('Invalid Content-Length "%s" in the response.', addcslashes(substr($value, 0, 40), "\0..\37\177..\377")));
                }
                if ($length !== null && $length !== (int) $item) {
                    throw new MalformedResponseException('The response has differing Content-Length values: its length is ambiguous, so it is refused.');
                }
                $length = (int) $item;
            }
        }

        return $length ?? 0;
    }

    private static function name(string $name): string
    {
        if (strspn($name, self::TCHAR) !== \strlen($name)) {
            throw new MalformedResponseException(\sprintf('Invalid header name "%s" in the response (whitespace before the colon, or a folded line?).', addcslashes(substr($name, 0, 80), "\0..\37\177..\377")));
        }
        if (\count(self::$names) >= self::MAX_NAMES) {
            self::$names = [];
        }

        return self::$names[$name] = strtolower($name);
    }
}
