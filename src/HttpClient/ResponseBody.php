<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\BodyTooLargeException;
use Nexus\Runtime\Cancellation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;

/**
 * The body of a streamed response (RequestOptions stream: true), read piece by piece as it
 * arrives: read() awaits the next piece (null at the end), or iterate with foreach.
 *
 *     foreach ($response->stream() as $piece) { ... }   // in a fiber, or from top-level code
 *
 * Backpressure: at most the client's streamWindow bytes (256 KiB by default) wait here unread;
 * beyond that the client stops reading the socket, so a slow reader slows the server down rather
 * than filling memory. Reading resumes once half of it has been read.
 *
 * A failure (a timeout, a broken connection, a malformed chunk) is thrown by the read() that
 * follows the pieces that arrived before it. close(), or dropping the last reference to an
 * unfinished body, closes the connection (its unread rest can never be skipped cheaply).
 *
 * @implements \IteratorAggregate<int, string>
 */
final class ResponseBody implements \IteratorAggregate
{
    /** @var array<int, string> pieces not read yet, oldest first */
    private array $pieces = [];
    private int $first = 0;
    private int $next = 0;
    private int $buffered = 0;
    private bool $done = false;
    private bool $paused = false;
    private ?\Throwable $error = null;
    /** @var Deferred<?string>|null */
    private ?Deferred $waiting = null;

    /**
     * @internal made by the client
     *
     * @param \Closure(): void $resume  asks the client to read the socket again
     * @param \Closure(): void $abandon tells the client nobody will read the rest
     */
    public function __construct(
        private readonly ?Loop $loop,
        private readonly int $window,
        private readonly ?\Closure $resume,
        private ?\Closure $abandon,
    ) {}

    public function __destruct()
    {
        if (!$this->done) {
            $this->close();
        }
    }

    /**
     * Makes a body that has fully arrived already (a buffered response's stream()).
     *
     * @internal
     */
    public static function complete(string $body): self
    {
        $stream = new self(null, \PHP_INT_MAX, null, null);
        if ($body !== '') {
            $stream->push($body);
        }
        $stream->finish();

        return $stream;
    }

    /**
     * The next piece of the body, awaiting it if none has arrived; null once the body has ended.
     * Throws what ended the response early (a TimeoutException, ConnectionLostException, ...), or
     * the CancelledException of $cancellation (the request goes on; read again or close()).
     */
    public function read(?Cancellation $cancellation = null): ?string
    {
        if ($this->first < $this->next) {
            $piece = $this->pieces[$this->first];
            unset($this->pieces[$this->first]);
            ++$this->first;
            $this->buffered -= \strlen($piece);
            if ($this->paused && $this->buffered <= $this->window >> 1) {
                $this->paused = false;
                if ($this->resume !== null) {
                    ($this->resume)();
                }
            }

            return $piece;
        }
        if ($this->error !== null) {
            throw $this->error;
        }
        if ($this->done) {
            return null;
        }
        \assert($this->loop !== null, 'a complete body never waits');
        /** @var Deferred<?string> $waiting */
        $waiting = new Deferred($this->loop);
        $this->waiting = $waiting;
        try {
            return $waiting->future()->await(null, $cancellation);
        } finally {
            if ($this->waiting === $waiting) {
                $this->waiting = null;
            }
        }
    }

    /**
     * The rest of the body as one string; BodyTooLargeException past $maxBytes (the connection is
     * then closed).
     */
    public function buffer(int $maxBytes = 16_777_216): string
    {
        $body = '';
        while (($piece = $this->read()) !== null) {
            $body .= $piece;
            if (\strlen($body) > $maxBytes) {
                $this->close();

                throw new BodyTooLargeException("The response body is larger than {$maxBytes} bytes: stream it piece by piece instead of buffering it, or raise the cap.");
            }
        }

        return $body;
    }

    /**
     * @return \Generator<int, string>
     */
    public function getIterator(): \Generator
    {
        while (($piece = $this->read()) !== null) {
            yield $piece;
        }
    }

    /**
     * Whether the whole body has arrived (it may not all be read yet).
     */
    public function isComplete(): bool
    {
        return $this->done && $this->error === null;
    }

    /**
     * Stops reading: the unread rest is dropped and, if the body has not fully arrived, the
     * connection is closed. Later reads return null.
     */
    public function close(): void
    {
        $abandon = $this->abandon;
        $this->abandon = null;
        $wasDone = $this->done;
        $this->done = true;
        $this->pieces = [];
        $this->first = $this->next = $this->buffered = 0;
        if (!$wasDone && $abandon !== null) {
            $abandon();
        }
    }

    /**
     * @internal called by the client with each piece; false asks it to stop reading the socket
     */
    public function push(string $piece): bool
    {
        if ($this->done) {
            return true;
        }
        $waiting = $this->waiting;
        if ($waiting !== null) {
            $this->waiting = null;
            $waiting->resolve($piece);

            return true;
        }
        $this->pieces[$this->next++] = $piece;
        $this->buffered += \strlen($piece);
        if ($this->buffered >= $this->window) {
            $this->paused = true;

            return false;
        }

        return true;
    }

    /**
     * @internal the body has ended
     */
    public function finish(): void
    {
        if ($this->done) {
            return;
        }
        $this->done = true;
        $this->abandon = null;
        $waiting = $this->waiting;
        $this->waiting = null;
        $waiting?->resolve(null);
    }

    /**
     * @internal the response failed after its head was delivered
     */
    public function fail(\Throwable $error): void
    {
        if ($this->done) {
            return;
        }
        $this->done = true;
        $this->abandon = null;
        $this->error = $error;
        $waiting = $this->waiting;
        $this->waiting = null;
        $waiting?->reject($error);
    }
}
