<?php

declare(strict_types=1);

namespace Nexus\Http\Parser;

use Nexus\Http\Request;

/**
 * Incremental HTTP/1.1 request parser (RFC 9112), one instance per connection.
 *
 * Call {@see feed()} with every chunk read from the socket, then {@see next()} until it returns
 * null: each call yields one complete request (head and body), so pipelined requests come out in
 * order. A {@see HttpParseException} means the connection must be answered with its status and
 * closed; the parser keeps rethrowing it.
 *
 * Deliberate strictness (RFC 9112 lets a recipient be lenient here, we are not, because lenient
 * parsing is what request smuggling feeds on):
 * - every line must end with CRLF; a bare LF or bare CR anywhere in the head is a 400;
 * - obsolete line folding, whitespace before the colon, and Content-Length together with
 *   Transfer-Encoding are all 400;
 * - chunked trailer fields are checked for syntax and size, then discarded: merging them into the
 *   headers would let a trailer change fields the application already trusted.
 */
final class RequestParser
{
    private const TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    private const HEX = '0123456789abcdefABCDEF';

    private const HEX_VALUES = [
        '0' => 0, '1' => 1, '2' => 2, '3' => 3, '4' => 4, '5' => 5, '6' => 6, '7' => 7, '8' => 8, '9' => 9,
        'a' => 10, 'b' => 11, 'c' => 12, 'd' => 13, 'e' => 14, 'f' => 15,
        'A' => 10, 'B' => 11, 'C' => 12, 'D' => 13, 'E' => 14, 'F' => 15,
    ];

    /** Control characters forbidden in a head; CR and LF are checked for pairing separately. */
    private const CTL = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0B\x0C\x0E\x0F"
        . "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1A\x1B\x1C\x1D\x1E\x1F\x7F";

    /** Control characters forbidden inside one already-split line. */
    private const CTL_LINE = self::CTL . "\r\n";

    /** NUL bytes, as many as CTL_LINE has bytes: strtr() maps each control character to NUL. */
    private const NULS_LINE = "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";

    private const CACHE_MAX_HEAD = 2048;

    private const CACHE_MAX_ENTRIES = 64;

    /**
     * Validated heads keyed by their exact bytes, shared by all parsers of the process. Limits
     * that depend on the parser are re-checked on every hit.
     *
     * @var array<string, ParsedHead>
     */
    private static array $headCache = [];

    /** Every byte that is not a tchar, and as many NULs: for strtr(), which is O(n) where strspn() is O(n*m). */
    private static string $nonToken = '';

    private static string $nonTokenNuls = '';

    private readonly ParserLimits $limits;

    private string $buffer = '';

    private int $pos = 0;

    /**
     * Where in $buffer the request being read began (negative once its first bytes were cut from
     * the front of $buffer): what lastRequestBytes counts from.
     */
    private int $requestStart = 0;

    /**
     * Bytes on the wire of the request next() returned last: head, body and framing (read it, do
     * not write it; a property rather than a method because the server reads it per request).
     */
    public int $lastRequestBytes = 0;

    /** Bytes after $pos already searched for the end of the head. */
    private int $scanned = 0;

    /** Length of the request line once its CRLF was seen while the head is incomplete, else -1. */
    private int $requestLineLength = -1;

    private ?ParsedHead $head = null;

    private string $body = '';

    private ChunkState $chunkState = ChunkState::Size;

    private int $chunkRemaining = 0;

    private int $trailerBytes = 0;

    private int $trailerCount = 0;

    private bool $continuePending = false;

    private ?HttpParseException $error = null;

    public function __construct(?ParserLimits $limits = null)
    {
        $this->limits = $limits ?? new ParserLimits();
        if (self::$nonToken === '') {
            for ($byte = 0; $byte < 256; ++$byte) {
                if (!str_contains(self::TCHAR, \chr($byte))) {
                    self::$nonToken .= \chr($byte);
                }
            }
            self::$nonTokenNuls = str_repeat("\0", \strlen(self::$nonToken));
        }
    }

    public function feed(string $bytes): void
    {
        if ($this->error !== null) {
            return;
        }
        $pos = $this->pos;
        if ($pos > 0) {
            $this->buffer = substr($this->buffer, $pos);
            $this->requestStart -= $pos;
            $this->pos = 0;
        }
        $this->buffer .= $bytes;
    }

    /**
     * The next complete request, or null when more bytes are needed.
     *
     * @throws HttpParseException
     */
    public function next(): ?Request
    {
        if ($this->error !== null) {
            throw $this->error;
        }
        if ($this->buffer === '' && $this->head === null) {
            return null;
        }
        try {
            return $this->parse();
        } catch (HttpParseException $e) {
            $this->error = $e;
            $this->buffer = '';
            $this->pos = 0;
            $this->head = null;
            $this->body = '';
            $this->continuePending = false;

            throw $e;
        }
    }

    /**
     * True once after {@see next()} returned null for a request that sent `Expect: 100-continue`
     * and whose body has not arrived yet: the server should write `HTTP/1.1 100 Continue` now.
     */
    public function needsContinue(): bool
    {
        $pending = $this->continuePending;
        $this->continuePending = false;

        return $pending;
    }

    /**
     * Whether a request head is complete and its body is still arriving: from then on the
     * server's body timeout applies instead of its header timeout.
     */
    public function isReadingBody(): bool
    {
        return $this->head !== null;
    }

    /**
     * Whether this parser holds nothing: no bytes, no request begun, no error. An idle parser is
     * as good as a new one with the same limits, so a server may lend it to another connection.
     */
    public function isIdle(): bool
    {
        return $this->buffer === '' && $this->head === null && $this->error === null && $this->requestStart === 0;
    }

    /** Bytes received but not yet returned as part of a request. */
    public function bufferedBytes(): int
    {
        return \strlen($this->buffer) - $this->pos + \strlen($this->body);
    }

    /**
     * What the request being read will hold once complete, as far as known: the bytes buffered
     * plus the rest of a declared body (Content-Length) still to arrive. A chunked body counts
     * as it arrives, its size not being known in advance.
     */
    public function heldBytes(): int
    {
        $buffered = \strlen($this->buffer) - $this->pos;
        $head = $this->head;
        if ($head === null) {
            return $buffered;
        }
        $body = \strlen($this->body);

        return $buffered + ($head->contentLength > $body ? $head->contentLength : $body);
    }

    /**
     * Hands over the bytes received after the request next() returned last, and parses nothing
     * more: the connection switches to another protocol after an upgrade request (a WebSocket
     * client may send its first frames right behind the request head). Call it before next()
     * begins another request.
     */
    public function takeBuffered(): string
    {
        if ($this->head !== null) {
            throw new \LogicException('takeBuffered() is for the bytes after a complete request; next() has begun reading another one.');
        }
        $rest = $this->pos === 0 ? $this->buffer : substr($this->buffer, $this->pos);
        $this->discard();

        return $rest;
    }

    /**
     * Forgets everything buffered and parses nothing more: the connection is being closed.
     */
    public function discard(): void
    {
        $this->error ??= new HttpParseException(400, 'The connection is closing; nothing more is parsed on it.');
        $this->buffer = '';
        $this->pos = 0;
        $this->head = null;
        $this->body = '';
        $this->continuePending = false;
    }

    private function parse(): ?Request
    {
        $head = $this->head;
        $fresh = false;
        if ($head === null) {
            $head = $this->readHead();
            if ($head === null) {
                return null;
            }
            if ($head->contentLength === 0) {
                // Without a body (the usual GET) the request is complete with its head: no state
                // is kept for a body, and only what changed is written (under the JIT, every
                // write to a typed property is a helper call of about 80 instructions).
                $pos = $this->pos;
                $this->lastRequestBytes = $pos - $this->requestStart;
                if ($pos >= \strlen($this->buffer)) {
                    $this->buffer = '';
                    $this->pos = 0;
                    if ($this->requestStart !== 0) {
                        $this->requestStart = 0;
                    }
                } else {
                    $this->requestStart = $pos;
                }

                return clone $head->prototype;
            }
            $this->head = $head;
            $this->body = '';
            $fresh = true;
            if ($head->contentLength < 0) {
                $this->chunkState = ChunkState::Size;
                $this->trailerBytes = 0;
                $this->trailerCount = 0;
            }
        }

        $done = $head->contentLength < 0 ? $this->readChunked() : $this->readFixed($head->contentLength);
        if ($this->pos >= \strlen($this->buffer)) {
            $this->buffer = '';
            $this->requestStart -= $this->pos;
            $this->pos = 0;
        }
        if (!$done) {
            if ($fresh && $head->expectContinue) {
                $this->continuePending = true;
            }

            return null;
        }

        $this->head = null;
        $this->continuePending = false;
        $body = $this->body;
        $this->body = '';
        $this->lastRequestBytes = $this->pos - $this->requestStart;
        $this->requestStart = $this->pos;

        if ($body === '') {
            return clone $head->prototype;
        }

        return new Request(
            $head->method,
            $head->target,
            $head->path,
            $head->query,
            $head->protocolVersion,
            $head->headers,
            $body,
            $head->keepAlive,
        );
    }

    private function readHead(): ?ParsedHead
    {
        $buf = $this->buffer;
        $pos = $this->pos;
        // RFC 9112 §2.2: ignore empty lines received before the request line.
        if (($buf[$pos] ?? '') === "\r" && ($buf[$pos + 1] ?? '') === "\n") {
            while (($buf[$pos] ?? '') === "\r" && ($buf[$pos + 1] ?? '') === "\n") {
                $pos += 2;
            }
            $this->pos = $pos;
            $this->scanned = 0;
            $this->requestLineLength = -1;
        }

        $from = $pos + ($this->scanned > 3 ? $this->scanned - 3 : 0);
        $end = strpos($buf, "\r\n\r\n", $from);
        if ($end === false) {
            $this->checkIncompleteHead($buf, $pos, $from);

            return null;
        }

        $headLength = $end - $pos;
        $raw = substr($buf, $pos, $headLength);
        $this->pos = $end + 4;
        if ($this->scanned !== 0) {
            $this->scanned = 0;
            $this->requestLineLength = -1;
        }

        $lineEnd = strpos($raw, "\r\n");
        $lineLength = $lineEnd === false ? $headLength : $lineEnd;
        if ($lineLength > $this->limits->maxRequestLineLength) {
            throw $this->uriTooLong();
        }
        if ($headLength - $lineLength > $this->limits->maxHeaderBytes) {
            throw $this->headersTooLarge();
        }

        $parsed = self::$headCache[$raw] ?? null;
        if ($parsed === null) {
            $parsed = $this->parseHead($raw);
            if ($headLength <= self::CACHE_MAX_HEAD) {
                if (\count(self::$headCache) >= self::CACHE_MAX_ENTRIES) {
                    self::$headCache = [];
                }
                self::$headCache[$raw] = $parsed;
            }
        } elseif ($parsed->headerCount > $this->limits->maxHeaderCount) {
            throw $this->tooManyHeaders();
        }

        if ($parsed->contentLength > $this->limits->maxBodyBytes) {
            throw new HttpParseException(413, \sprintf(
                'Content-Length %d exceeds the %d byte body limit; send a smaller body or raise ParserLimits::$maxBodyBytes.',
                $parsed->contentLength,
                $this->limits->maxBodyBytes,
            ));
        }

        return $parsed;
    }

    private function checkIncompleteHead(string $buf, int $pos, int $from): void
    {
        $available = \strlen($buf) - $pos;
        $this->scanned = $available;
        // In a CRLF-only head neither pattern can occur before the final CRLFCRLF; without this
        // check a bare-LF client would wait for a terminator that never comes.
        if (strpos($buf, "\n\n", $from) !== false || strpos($buf, "\n\r\n", $from) !== false) {
            throw new HttpParseException(400, 'Request head uses bare LF line endings; end every line with CRLF.');
        }
        $maxLine = $this->limits->maxRequestLineLength;
        if ($this->requestLineLength < 0) {
            // Every earlier call searched up to its end, so the first CRLF can only be in new bytes.
            $lineEnd = strpos($buf, "\r\n", $from);
            if ($lineEnd === false) {
                if ($available > $maxLine) {
                    throw $this->uriTooLong();
                }

                return;
            }
            $this->requestLineLength = $lineEnd - $pos;
            if ($this->requestLineLength > $maxLine) {
                throw $this->uriTooLong();
            }
        }
        // Up to 3 bytes of the final CRLFCRLF may already be buffered.
        if ($available - $this->requestLineLength - 3 > $this->limits->maxHeaderBytes) {
            throw $this->headersTooLarge();
        }
    }

    private function parseHead(string $raw): ParsedHead
    {
        if (str_contains(strtr($raw, self::CTL, self::NULS_LINE), "\0")) {
            throw new HttpParseException(400, 'Request head contains a control character; only HTAB is allowed inside field values.');
        }
        $lineCount = substr_count($raw, "\r\n");
        if (substr_count($raw, "\n") !== $lineCount || substr_count($raw, "\r") !== $lineCount) {
            throw new HttpParseException(400, 'Request head contains a bare CR or LF; end every line with CRLF and do not use CR or LF elsewhere.');
        }
        $lines = explode("\r\n", $raw);

        $requestLine = $lines[0];
        $parts = explode(' ', $requestLine);
        if (\count($parts) !== 3 || str_contains($requestLine, "\t")) {
            throw new HttpParseException(400, 'Malformed request line; expected "METHOD SP request-target SP HTTP/1.1" with single spaces.');
        }
        [$method, $target, $versionToken] = $parts;
        if ($method === '' || !self::isToken($method)) {
            throw new HttpParseException(400, 'Request method is not a valid token (RFC 9110 §5.6.2).');
        }
        $version = $this->version($versionToken);
        if ($method === 'CONNECT') {
            throw new HttpParseException(501, 'CONNECT is not implemented by this server.');
        }

        if ($lineCount > $this->limits->maxHeaderCount) {
            throw $this->tooManyHeaders();
        }
        $headers = [];
        // All names are validated in one pass at the end; the loop only needs a colon.
        $names = '';
        for ($i = 1; $i <= $lineCount; ++$i) {
            $line = $lines[$i];
            $colon = strpos($line, ':');
            if ($colon === false || $colon === 0) {
                throw $this->badFieldLine($line, $colon, 'Header');
            }
            $name = substr($line, 0, $colon);
            $names .= $name;
            $headers[strtolower($name)][] = trim(substr($line, $colon + 1), " \t");
        }
        if ($names !== '' && !self::isToken($names)) {
            for ($i = 1; $i <= $lineCount; ++$i) {
                $colon = (int) strpos($lines[$i], ':');
                if (!self::isToken(substr($lines[$i], 0, $colon))) {
                    throw $this->badFieldLine($lines[$i], $colon, 'Header');
                }
            }
        }

        $authority = null;
        [$path, $query] = $this->targetParts($method, $target, $authority);

        $host = $headers['host'] ?? null;
        if ($host === null) {
            if ($version === '1.1') {
                throw new HttpParseException(400, 'HTTP/1.1 request without a Host header; send exactly one Host header.');
            }
        } elseif (\count($host) > 1) {
            throw new HttpParseException(400, 'Request has more than one Host header; send exactly one.');
        }
        if ($authority !== null) {
            // RFC 9112 §3.2.2: with absolute-form the target's authority replaces Host.
            $headers['host'] = [$authority];
        }

        $contentLength = $this->contentLength($headers, $version);

        $expectContinue = false;
        $expect = $headers['expect'] ?? null;
        if ($expect !== null) {
            if (strtolower(implode(',', $expect)) !== '100-continue') {
                throw new HttpParseException(417, 'Unsupported Expect header; only "100-continue" is supported.');
            }
            // RFC 9110 §10.1.1: an HTTP/1.0 client must not get an interim 100 response.
            $expectContinue = $version === '1.1' && $contentLength !== 0;
        }

        $connection = $headers['connection'] ?? null;
        if ($connection === null) {
            $keepAlive = $version === '1.1';
        } else {
            $tokens = ',' . str_replace([' ', "\t"], '', strtolower(implode(',', $connection))) . ',';
            $keepAlive = !str_contains($tokens, ',close,')
                && ($version === '1.1' || str_contains($tokens, ',keep-alive,'));
        }

        return new ParsedHead(
            $method,
            $target,
            $path,
            $query,
            $version,
            $headers,
            $lineCount,
            $contentLength,
            $expectContinue,
            $keepAlive,
        );
    }

    private function version(string $token): string
    {
        if ($token === 'HTTP/1.1') {
            return '1.1';
        }
        if ($token === 'HTTP/1.0') {
            return '1.0';
        }
        if (\strlen($token) !== 8 || !str_starts_with($token, 'HTTP/') || $token[6] !== '.'
            || !ctype_digit($token[5]) || !ctype_digit($token[7])) {
            throw new HttpParseException(400, 'Malformed HTTP version in the request line; expected "HTTP/1.1" or "HTTP/1.0".');
        }
        if ($token[5] === '1') {
            // RFC 9110 §6.2: a higher minor version is handled as the highest one we support.
            return '1.1';
        }

        throw new HttpParseException(505, \sprintf('%s is not supported; use HTTP/1.1 or HTTP/1.0.', $token));
    }

    /**
     * @return array{string, string} path and query
     */
    private function targetParts(string $method, string $target, ?string &$authority): array
    {
        if ($target === '' || str_contains($target, '#')) {
            throw new HttpParseException(400, 'Request target is empty or contains a fragment (#); send the path and query only.');
        }
        if ($target[0] === '/') {
            $q = strpos($target, '?');

            return $q === false ? [$target, ''] : [substr($target, 0, $q), substr($target, $q + 1)];
        }
        if ($target === '*') {
            if ($method !== 'OPTIONS') {
                throw new HttpParseException(400, 'The asterisk request target ("*") is only valid with OPTIONS.');
            }

            return ['*', ''];
        }

        $schemeEnd = strpos($target, '://');
        $scheme = $schemeEnd === false ? '' : strtolower(substr($target, 0, $schemeEnd));
        if ($scheme !== 'http' && $scheme !== 'https') {
            throw new HttpParseException(400, 'Request target must be an absolute path ("/..."), an http(s) absolute URI, or "*" with OPTIONS.');
        }
        $rest = substr($target, (int) $schemeEnd + 3);
        $authorityLength = strcspn($rest, '/?');
        $authority = substr($rest, 0, $authorityLength);
        if ($authority === '' || str_contains($authority, '@')) {
            throw new HttpParseException(400, 'Absolute request target needs a host and must not carry user info ("user@").');
        }
        $pathAndQuery = substr($rest, $authorityLength);
        if ($pathAndQuery === '') {
            return ['/', ''];
        }
        $q = strpos($pathAndQuery, '?');
        if ($q === false) {
            return [$pathAndQuery, ''];
        }
        $path = substr($pathAndQuery, 0, $q);

        return [$path === '' ? '/' : $path, substr($pathAndQuery, $q + 1)];
    }

    /**
     * @param array<string, list<string>> $headers
     *
     * @return int declared body length, -1 for chunked
     */
    private function contentLength(array $headers, string $version): int
    {
        $te = $headers['transfer-encoding'] ?? null;
        $cl = $headers['content-length'] ?? null;
        if ($te !== null) {
            if ($cl !== null) {
                throw new HttpParseException(400, 'Request has both Content-Length and Transfer-Encoding; send only one of them.');
            }
            if ($version === '1.0') {
                throw new HttpParseException(400, 'Transfer-Encoding is not allowed in an HTTP/1.0 request; use Content-Length.');
            }
            $codings = [];
            foreach (explode(',', strtolower(implode(',', $te))) as $coding) {
                $coding = trim($coding, " \t");
                if ($coding !== '') {
                    $codings[] = $coding;
                }
            }
            if (array_pop($codings) !== 'chunked') {
                throw new HttpParseException(400, 'Transfer-Encoding must end with "chunked" so the body length can be determined.');
            }
            foreach ($codings as $coding) {
                if ($coding === 'chunked') {
                    throw new HttpParseException(400, 'Transfer-Encoding applies "chunked" more than once; apply it once, last.');
                }
            }
            if ($codings !== []) {
                throw new HttpParseException(501, \sprintf('Transfer coding "%s" is not implemented; send the body with "chunked" only.', $codings[0]));
            }

            return -1;
        }
        if ($cl === null) {
            return 0;
        }
        if (\count($cl) !== 1) {
            throw new HttpParseException(400, 'Request has more than one Content-Length header; send exactly one.');
        }
        $value = $cl[0];
        $digits = \strlen($value);
        if ($digits === 0 || $digits > 18 || strspn($value, '0123456789') !== $digits) {
            throw new HttpParseException(400, 'Content-Length must be a single non-negative decimal number of at most 18 digits.');
        }

        return (int) $value;
    }

    private function readFixed(int $length): bool
    {
        $missing = $length - \strlen($this->body);
        if ($missing === 0) {
            return true;
        }
        $available = \strlen($this->buffer) - $this->pos;
        if ($available <= 0) {
            return false;
        }
        $take = $available < $missing ? $available : $missing;
        $this->body .= substr($this->buffer, $this->pos, $take);
        $this->pos += $take;

        return $take === $missing;
    }

    private function readChunked(): bool
    {
        $buf = $this->buffer;
        $length = \strlen($buf);
        $pos = $this->pos;
        $limits = $this->limits;

        try {
            while (true) {
                switch ($this->chunkState) {
                    case ChunkState::Size:
                        // Whole chunks without extensions ("HEX CRLF data CRLF"), the usual shape,
                        // are decoded here with a few calls each; anything else (an extension,
                        // a chunk not complete yet, the last chunk) takes the steps below.
                        $max = $limits->maxBodyBytes;
                        while ($pos + 5 <= $length) {
                            $size = self::HEX_VALUES[$buf[$pos]] ?? -1;
                            if ($size >= 0 && $buf[$pos + 1] === "\r") {
                                $eol = $pos + 1; // one hex digit
                            } else {
                                $digits = strspn($buf, self::HEX, $pos, 16);
                                $eol = $pos + $digits;
                                if ($digits === 0 || $digits === 16 || ($buf[$eol] ?? '') !== "\r") {
                                    break;
                                }
                                $size = (int) hexdec(substr($buf, $pos, $digits));
                            }
                            if (($buf[$eol + 1] ?? '') !== "\n") {
                                break;
                            }
                            $end = $eol + 2 + $size;
                            if ($size === 0 || $end + 2 > $length) {
                                break;
                            }
                            if (\strlen($this->body) + $size > $max) {
                                throw $this->chunkedBodyTooLarge();
                            }
                            if ($buf[$end] !== "\r" || $buf[$end + 1] !== "\n") {
                                throw $this->missingChunkCrlf();
                            }
                            $this->body .= $size === 1 ? $buf[$eol + 2] : substr($buf, $eol + 2, $size);
                            $pos = $end + 2;
                        }
                        $eol = strpos($buf, "\r\n", $pos);
                        if ($eol === false) {
                            if ($length - $pos > $limits->maxChunkLineLength) {
                                throw $this->chunkLineTooLong();
                            }
                            if (strpos($buf, "\n", $pos) !== false) {
                                throw new HttpParseException(400, 'Chunk size line ends with a bare LF; end it with CRLF.');
                            }

                            return false;
                        }
                        if ($eol - $pos > $limits->maxChunkLineLength) {
                            throw $this->chunkLineTooLong();
                        }
                        $line = substr($buf, $pos, $eol - $pos);
                        $pos = $eol + 2;
                        $size = $this->chunkSize($line);
                        if ($size === 0) {
                            $this->chunkState = ChunkState::Trailer;
                            break;
                        }
                        if (\strlen($this->body) + $size > $limits->maxBodyBytes) {
                            throw $this->chunkedBodyTooLarge();
                        }
                        $this->chunkRemaining = $size;
                        $this->chunkState = ChunkState::Data;
                        break;

                    case ChunkState::Data:
                        $available = $length - $pos;
                        if ($available <= 0) {
                            return false;
                        }
                        $take = $available < $this->chunkRemaining ? $available : $this->chunkRemaining;
                        $this->body .= substr($buf, $pos, $take);
                        $pos += $take;
                        $this->chunkRemaining -= $take;
                        if ($this->chunkRemaining > 0) {
                            return false;
                        }
                        $this->chunkState = ChunkState::DataEnd;
                        break;

                    case ChunkState::DataEnd:
                        if ($length - $pos < 2) {
                            if ($length - $pos === 1 && $buf[$pos] !== "\r") {
                                throw $this->missingChunkCrlf();
                            }

                            return false;
                        }
                        if ($buf[$pos] !== "\r" || $buf[$pos + 1] !== "\n") {
                            throw $this->missingChunkCrlf();
                        }
                        $pos += 2;
                        $this->chunkState = ChunkState::Size;
                        break;

                    case ChunkState::Trailer:
                        $eol = strpos($buf, "\r\n", $pos);
                        if ($eol === false) {
                            if ($this->trailerBytes + $length - $pos > $limits->maxHeaderBytes) {
                                throw $this->headersTooLarge();
                            }
                            if (strpos($buf, "\n", $pos) !== false) {
                                throw new HttpParseException(400, 'Chunked trailer line ends with a bare LF; end it with CRLF.');
                            }

                            return false;
                        }
                        $line = substr($buf, $pos, $eol - $pos);
                        $pos = $eol + 2;
                        if ($line === '') {
                            return true;
                        }
                        $this->trailerBytes += \strlen($line) + 2;
                        if ($this->trailerBytes > $limits->maxHeaderBytes) {
                            throw $this->headersTooLarge();
                        }
                        if (++$this->trailerCount > $limits->maxHeaderCount) {
                            throw $this->tooManyHeaders();
                        }
                        $this->checkTrailerLine($line);
                        break;
                }
            }
        } finally {
            $this->pos = $pos;
        }
    }

    private function chunkSize(string $line): int
    {
        if (str_contains(strtr($line, self::CTL_LINE, self::NULS_LINE), "\0")) {
            throw new HttpParseException(400, 'Chunk size line contains a control character or bare CR/LF.');
        }
        $semicolon = strpos($line, ';');
        $hex = $semicolon === false ? $line : rtrim(substr($line, 0, $semicolon), " \t");
        $digits = \strlen($hex);
        if ($digits === 0 || strspn($hex, self::HEX) !== $digits) {
            throw new HttpParseException(400, 'Chunk size is not a hexadecimal number; send "<hex-size>[;extensions]" CRLF.');
        }
        $hex = ltrim($hex, '0');
        if (\strlen($hex) > 15) {
            throw new HttpParseException(400, 'Chunk size overflows; send chunks smaller than 2^60 bytes.');
        }

        return $hex === '' ? 0 : (int) hexdec($hex);
    }

    private function checkTrailerLine(string $line): void
    {
        if (str_contains(strtr($line, self::CTL_LINE, self::NULS_LINE), "\0")) {
            throw new HttpParseException(400, 'Chunked trailer contains a control character or bare CR/LF.');
        }
        $colon = strpos($line, ':');
        if ($colon === false || $colon === 0 || !self::isToken(substr($line, 0, $colon))) {
            throw $this->badFieldLine($line, $colon, 'Trailer');
        }
    }

    private static function isToken(string $bytes): bool
    {
        return !str_contains(strtr($bytes, self::$nonToken, self::$nonTokenNuls), "\0");
    }

    private function badFieldLine(string $line, int|false $colon, string $kind): HttpParseException
    {
        if ($line !== '' && ($line[0] === ' ' || $line[0] === "\t")) {
            return new HttpParseException(400, $kind . ' line starts with whitespace (obsolete line folding); put each field on one line.');
        }
        if ($colon === false) {
            return new HttpParseException(400, $kind . ' line has no colon; send "Name: value".');
        }
        $last = $colon > 0 ? $line[$colon - 1] : '';
        if ($last === ' ' || $last === "\t") {
            return new HttpParseException(400, $kind . ' field name is followed by whitespace before the colon; remove it.');
        }

        return new HttpParseException(400, $kind . ' field name is empty or not a valid token (RFC 9110 §5.1).');
    }

    private function uriTooLong(): HttpParseException
    {
        return new HttpParseException(414, \sprintf(
            'Request line exceeds %d bytes; shorten the URI or raise ParserLimits::$maxRequestLineLength.',
            $this->limits->maxRequestLineLength,
        ));
    }

    private function headersTooLarge(): HttpParseException
    {
        return new HttpParseException(431, \sprintf(
            'Header fields exceed %d bytes; send fewer or shorter headers or raise ParserLimits::$maxHeaderBytes.',
            $this->limits->maxHeaderBytes,
        ));
    }

    private function tooManyHeaders(): HttpParseException
    {
        return new HttpParseException(431, \sprintf(
            'More than %d header fields; send fewer or raise ParserLimits::$maxHeaderCount.',
            $this->limits->maxHeaderCount,
        ));
    }

    private function chunkLineTooLong(): HttpParseException
    {
        return new HttpParseException(400, \sprintf(
            'Chunk size line (with extensions) exceeds %d bytes; drop chunk extensions or raise ParserLimits::$maxChunkLineLength.',
            $this->limits->maxChunkLineLength,
        ));
    }

    private function chunkedBodyTooLarge(): HttpParseException
    {
        return new HttpParseException(413, \sprintf(
            'Chunked body exceeds the %d byte body limit; send a smaller body or raise ParserLimits::$maxBodyBytes.',
            $this->limits->maxBodyBytes,
        ));
    }

    private function missingChunkCrlf(): HttpParseException
    {
        return new HttpParseException(400, 'Chunk data is not followed by CRLF; the chunk size does not match the data sent.');
    }
}
