<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\InvalidRequestException;

/**
 * A request body: a string (sent with Content-Length), or pieces produced while the request is
 * sent (sent with Content-Length when $length is known, else with Transfer-Encoding: chunked).
 * A producer is read one piece at a time, only when the connection has room (its write buffer
 * below 64 KiB), so a large upload is never held in memory whole; a producer running in the
 * request's fiber may await between pieces.
 *
 *     RequestBody::fromString('{"a":1}');
 *     RequestBody::fromResource(fopen('/tmp/upload.bin', 'rb'));         // length from fstat
 *     RequestBody::fromIterable(fn() => yield from $rows, length: null);   // chunked
 *
 * A body whose pieces come from a closure or a seekable resource can be sent again (a retry on a
 * fresh connection, a 307/308 redirect); one from a plain iterable or a pipe cannot.
 */
final class RequestBody
{
    private const PIECE = 65_536;

    /**
     * @param (\Closure(): iterable<string>)|null $pieces
     */
    private function __construct(
        public readonly ?string $string,
        public readonly ?int $length,
        private readonly ?\Closure $pieces,
        public readonly bool $replayable,
    ) {}

    public static function fromString(string $body): self
    {
        return new self($body, \strlen($body), null, true);
    }

    /**
     * Reads $resource from its current position to its end, in 64 KiB pieces. $length null: the
     * rest of a plain file (fstat), else unknown (chunked). Reads block like any fread(): use files
     * or php://temp, not a socket (use fromIterable() with an async source for that).
     *
     * @param resource $resource
     */
    public static function fromResource(mixed $resource, ?int $length = null): self
    {
        if (!\is_resource($resource)) {
            throw new InvalidRequestException('RequestBody::fromResource() needs an open stream resource.');
        }
        $meta = stream_get_meta_data($resource);
        $start = $meta['seekable'] ? ftell($resource) : false;
        if ($length === null && $start !== false) {
            $stat = fstat($resource);
            if ($stat !== false && $stat['size'] > 0 && $meta['wrapper_type'] === 'plainfile') {
                $length = $stat['size'] - $start;
            }
        }

        return new self(null, $length, static function () use ($resource, $start): \Generator {
            if ($start !== false) {
                fseek($resource, $start);
            }
            while (!feof($resource)) {
                $piece = fread($resource, self::PIECE);
                if ($piece === false) {
                    throw new \RuntimeException('Reading the request body from its stream failed: ' . (error_get_last()['message'] ?? 'unknown error'));
                }
                if ($piece !== '') {
                    yield $piece;
                }
            }
        }, $start !== false);
    }

    /**
     * Pieces from an iterable (a generator, an array), or from a closure that returns a fresh one
     * each time it is called (then the body can be sent again). $length null: chunked.
     *
     * @param iterable<string>|(\Closure(): iterable<string>) $pieces
     */
    public static function fromIterable(iterable|\Closure $pieces, ?int $length = null): self
    {
        if ($length !== null && $length < 0) {
            throw new InvalidRequestException("A request body cannot have a negative length, got {$length}.");
        }
        if ($pieces instanceof \Closure) {
            return new self(null, $length, $pieces, true);
        }

        return new self(null, $length, static fn(): iterable => $pieces, \is_array($pieces));
    }

    /**
     * @internal the same pieces, declared to be $length bytes long (a Content-Length header given)
     */
    public function withLength(int $length): self
    {
        if ($length < 0) {
            throw new InvalidRequestException("A request body cannot have a negative length, got {$length}.");
        }

        return new self($this->string, $length, $this->pieces, $this->replayable);
    }

    /**
     * @internal the pieces to send, for one attempt
     *
     * @return iterable<string>
     */
    public function pieces(): iterable
    {
        if ($this->string !== null) {
            return [$this->string];
        }
        \assert($this->pieces !== null);

        return ($this->pieces)();
    }
}
