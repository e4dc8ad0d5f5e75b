<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\Exception\ConnectionLostException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * One HTTP/1.1 connection to an origin, plain or TLS, carrying one exchange at a time.
 *
 * Its socket is watched for readability for as long as it is open, also while it sits idle in
 * the pool: bytes or an EOF arriving then mean the server closed it (or broke it), and it is
 * closed at once, so the pool never hands it out again. Reading pauses only for a streamed body
 * whose reader fell behind.
 *
 * Writes go out at once; what the kernel does not take waits in a buffer with an offset (never
 * copied as a whole again), sent in slices of at most 256 KiB when the socket turns writable.
 * write() says false above 64 KiB pending, and drained() settles when the buffer is empty, so a
 * streamed request body is produced no faster than it is sent. Over TLS a read drains what OpenSSL
 * already decrypted (it is invisible to stream_select).
 *
 * @internal
 */
final class HttpConnection
{
    public const HIGH_WATER_MARK = 65_536;
    private const READ_SIZE = 65_536;
    private const WRITE_SLICE = 262_144;

    public ?Exchange $exchange = null;
    /** Responses completed on this connection (a reused connection may have been closed by the server meanwhile). */
    public int $served = 0;
    public bool $closed = false;
    private ?int $readWatcher = null;
    private ?int $writeWatcher = null;
    private string $out = '';
    private int $outPos = 0;
    private bool $paused = false;
    /** @var Deferred<null>|null */
    private ?Deferred $drain = null;

    /**
     * @param resource $stream a connected, non-blocking socket (with crypto enabled for TLS)
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly mixed $stream,
        public readonly string $origin,
        private readonly bool $tls,
        public readonly ResponseParser $parser,
    ) {
        stream_set_read_buffer($stream, 0);
        $this->readWatcher = $loop->onReadable($stream, $this->readable(...));
        $loop->unreference($this->readWatcher);
    }

    /**
     * Marks the connection busy with $exchange (its read watcher then keeps Loop::run() going) or
     * idle (null: an idle kept-alive connection does not keep a finished program alive).
     */
    public function assign(?Exchange $exchange): void
    {
        $this->exchange = $exchange;
        if ($this->readWatcher !== null) {
            if ($exchange === null) {
                $this->loop->unreference($this->readWatcher);
            } else {
                $this->loop->reference($this->readWatcher);
            }
        }
    }

    /**
     * Queues $bytes; false when more than the high-water mark is now pending (see drained()).
     * Does nothing on a closed connection (its exchange has failed already).
     */
    public function write(string $bytes): bool
    {
        if ($this->closed) {
            return false;
        }
        if ($this->outPos >= \strlen($this->out)) {
            $this->out = $bytes;
            $this->outPos = 0;
            $this->flush();
        } else {
            $this->out .= $bytes;
        }

        return \strlen($this->out) - $this->outPos <= self::HIGH_WATER_MARK;
    }

    /**
     * Whether every byte written so far has gone to the kernel.
     */
    public function flushed(): bool
    {
        return $this->outPos >= \strlen($this->out);
    }

    /**
     * Settles once the write buffer has emptied; fails when the connection closes first.
     *
     * @return Future<null>
     */
    public function drained(): Future
    {
        if ($this->closed) {
            return Future::rejected($this->loop, new ConnectionLostException('The connection closed while the request body was being sent.'));
        }
        if ($this->flushed()) {
            return Future::fulfilled($this->loop, null);
        }
        /** @var Deferred<null> $drain */
        $drain = $this->drain ??= new Deferred($this->loop);

        return $drain->future();
    }

    public function pauseReading(): void
    {
        if (!$this->paused && !$this->closed) {
            $this->paused = true;
            if ($this->readWatcher !== null) {
                $this->loop->cancel($this->readWatcher);
                $this->readWatcher = null;
            }
        }
    }

    public function resumeReading(): void
    {
        if ($this->paused && !$this->closed) {
            $this->paused = false;
            $this->readWatcher = $this->loop->onReadable($this->stream, $this->readable(...));
            if ($this->exchange === null) {
                $this->loop->unreference($this->readWatcher);
            }
            if ($this->tls) {
                // OpenSSL may hold decrypted bytes the socket no longer signals.
                $this->loop->defer(function (): void {
                    if (!$this->paused && !$this->closed) {
                        $this->readable();
                    }
                });
            }
        }
    }

    /**
     * Closes at once; the exchange in flight (if any) fails with $reason.
     */
    public function close(?\Throwable $reason = null): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->readWatcher !== null) {
            $this->loop->cancel($this->readWatcher);
            $this->readWatcher = null;
        }
        if ($this->writeWatcher !== null) {
            $this->loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        }
        $this->out = '';
        $this->outPos = 0;
        fclose($this->stream);
        $drain = $this->drain;
        $this->drain = null;
        $drain?->reject(new ConnectionLostException('The connection closed while the request body was being sent.'));
        $exchange = $this->exchange;
        if ($exchange !== null) {
            $exchange->connectionFailed($reason ?? new ConnectionLostException('The connection was closed during the request.'));
        }
    }

    private function readable(): void
    {
        $data = @fread($this->stream, self::READ_SIZE);
        if ($data === false || $data === '') {
            if ($data === false || feof($this->stream)) {
                $this->ended($data === false ? 'reading failed: ' . (error_get_last()['message'] ?? 'unknown error') : null);
            }

            return;
        }
        if ($this->tls) {
            for ($i = 0; $i < 15; ++$i) {
                $more = @fread($this->stream, self::READ_SIZE);
                if ($more === false || $more === '') {
                    break;
                }
                $data .= $more;
            }
        }
        $exchange = $this->exchange;
        if ($exchange === null) {
            // Bytes on an idle connection: the server is not speaking HTTP/1.1 to us any more.
            $this->close();

            return;
        }
        $exchange->received($data);
    }

    private function ended(?string $error): void
    {
        $exchange = $this->exchange;
        if ($exchange === null) {
            $this->close();

            return;
        }
        $exchange->ended($error);
    }

    private function flush(): void
    {
        $pending = \strlen($this->out) - $this->outPos;
        $slice = $this->outPos === 0 && $pending <= self::WRITE_SLICE ? $this->out : substr($this->out, $this->outPos, self::WRITE_SLICE);
        $written = @fwrite($this->stream, $slice);
        if ($written === false) {
            $this->close(new ConnectionLostException('Sending the request failed: ' . (error_get_last()['message'] ?? 'unknown error')));

            return;
        }
        $this->outPos += $written;
        if ($this->outPos < \strlen($this->out)) {
            if ($written > 0) {
                $this->exchange?->progressed();
                if ($this->outPos > self::WRITE_SLICE) {
                    $this->out = substr($this->out, $this->outPos);
                    $this->outPos = 0;
                }
            }
            $this->writeWatcher ??= $this->loop->onWritable($this->stream, function (): void {
                $this->flush();
            });

            return;
        }
        $this->out = '';
        $this->outPos = 0;
        if ($this->writeWatcher !== null) {
            $this->loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        }
        $drain = $this->drain;
        if ($drain !== null) {
            $this->drain = null;
            $drain->resolve(null);
        }
        $this->exchange?->flushed();
    }
}
