<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Io\Exception\ConnectionClosedException;
use Nexus\Io\Exception\ConnectionLostException;
use Nexus\Io\Exception\ReadPendingException;
use Nexus\Io\Exception\TlsHandshakeException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Runtime\StreamWatcher;

/**
 * A non-blocking stream socket (TCP or Unix) on the loop.
 *
 * Reading starts when the first onData() callback is registered or read() is called, and it runs
 * while any onData() callback is registered (unless pause()d) or a read() is pending. Each
 * readiness event reads one chunk of up to 64 KiB (asking for 2 KiB first while the peer sends
 * little: see SMALL_READ). When the peer half-closes, onEnd() callbacks
 * run; if nobody registered one (and no read() was pending), the connection end()s its own side
 * so that a forgotten connection cannot stay half-open forever.
 *
 * Writing is buffered: write() tries to send at once and keeps what the kernel did not take,
 * watching for writability only while bytes are pending. It returns false once more than the
 * high-water mark is pending (slow down), and onDrain() callbacks run when the buffer has emptied
 * after that. The pending bytes are sent from an offset into the buffer, at most WRITE_SLICE per
 * system call, and the sent part is cut off only once it is at least half of the buffer: sending
 * costs time in proportion to the bytes, however slowly the peer reads. end() half-closes the
 * write side after the buffer is flushed; the read side stays open. close() closes at once and
 * drops pending writes.
 *
 * onClose() callbacks run exactly once, with the reason when the connection broke (null for a
 * normal close).
 *
 * An owner may attach() one ConnectionHandler object instead of (or besides) the callbacks: it
 * costs an idle connection no closure and no callback list.
 *
 * startTls() turns a fresh connection into a TLS one (client or server) with a non-blocking
 * handshake on the loop, bounded by a timeout. Over TLS a readiness event reads on until OpenSSL
 * has nothing decrypted left (it is invisible to the loop), TLS_READ_MAX bytes at most per event;
 * past that, and after resume(), the rest is read on the next loop turn. A plain connection never
 * takes that path.
 */
final class Connection implements StreamWatcher
{
    public const DEFAULT_HIGH_WATER_MARK = 65_536;
    private const CHUNK_SIZE = 65_536;
    /**
     * What a read asks for while the reads before it came back small (a request, a WebSocket
     * message): fread() allocates the whole size before it reads, and 2 KiB is a small block of
     * PHP's allocator, where 64 KiB takes pages and a copy to shrink (about 220 instructions more
     * per read). A read that fills it reads the rest of its chunk at once and switches to
     * CHUNK_SIZE; one that brings less than this switches back. What a readiness event delivers
     * is the same either way: one chunk of up to CHUNK_SIZE.
     */
    private const SMALL_READ = 2_048;
    /** Most bytes handed to one fwrite() of pending data (a copy of at most this much per call). */
    private const WRITE_SLICE = 65_536;
    /** Most bytes one readiness event reads over TLS before it lets the loop run. */
    private const TLS_READ_MAX = 1024 * 1024;

    // The properties a read or a write touches come first, in the order they are touched, so
    // that they share the fewest cache lines: with a thousand connections, each request finds its
    // connection's object cold.
    /** @var resource */
    private readonly mixed $stream;
    private ?int $readWatcher = null;
    /** @var int<1, max> what the next read asks for: SMALL_READ or CHUNK_SIZE */
    private int $readSize = self::SMALL_READ;
    /** Crypto is enabled (startTls()): reads drain OpenSSL's buffer. */
    private bool $tls = false;
    /** @var Deferred<?string>|null */
    private ?Deferred $pendingRead = null;
    private ?ConnectionHandler $handler = null;
    private bool $closed = false;
    /** @var list<\Closure(string): void> */
    private array $dataCallbacks = [];
    private bool $ending = false;
    /** Bytes to send: those before $sent were sent already. */
    private string $buffer = '';
    /** Bytes the kernel has taken over the connection's life. */
    private int $sentTotal = 0;
    private int $sent = 0;
    private bool $aboveMark = false;
    private ?int $writeWatcher = null;
    private readonly int $highWaterMark;
    private bool $paused = false;
    private bool $readEnded = false;
    private bool $writeShut = false;
    private ?\Throwable $closeReason = null;
    private ?TlsHandshake $handshake = null;
    private ?string $localAddress = null;
    private ?string $remoteAddress = null;
    /** @var list<\Closure(): void> */
    private array $endCallbacks = [];
    /** @var list<\Closure(?\Throwable): void> */
    private array $closeCallbacks = [];
    /** @var list<\Closure(): void> */
    private array $drainCallbacks = [];

    /**
     * @internal Connections come from Listener, Connector and SocketPair.
     *
     * @param resource $stream a connected stream socket; it is switched to non-blocking mode
     */
    public function __construct(
        private readonly Loop $loop,
        mixed $stream,
        int $highWaterMark = self::DEFAULT_HIGH_WATER_MARK,
        /** The listener that accepted it, told when it closes (a reference rather than an onClose() closure: no closure per connection, and handOver() cannot drop it). */
        private readonly ?Listener $listener = null,
    ) {
        if ($highWaterMark < 1) {
            throw new \InvalidArgumentException("The write high-water mark must be at least 1 byte, got {$highWaterMark}.");
        }
        $this->highWaterMark = $highWaterMark;
        stream_set_blocking($stream, false);
        // Without this PHP may read ahead into its own buffer, which stream_select cannot see.
        stream_set_read_buffer($stream, 0);
        $this->stream = $stream;
    }

    /**
     * @param \Closure(string): void $callback called with each chunk of bytes received
     */
    public function onData(\Closure $callback): void
    {
        $this->dataCallbacks[] = $callback;
        $this->updateReadWatcher();
    }

    /**
     * @param \Closure(): void $callback called once when the peer has closed its write side (EOF)
     */
    public function onEnd(\Closure $callback): void
    {
        $this->endCallbacks[] = $callback;
    }

    /**
     * @param \Closure(?\Throwable): void $callback called once when the connection is fully
     *                                              closed; the argument says why when it broke
     */
    public function onClose(\Closure $callback): void
    {
        if ($this->closed) {
            $callback($this->closeReason);

            return;
        }
        $this->closeCallbacks[] = $callback;
    }

    /**
     * @param \Closure(): void $callback called when the write buffer has emptied after write()
     *                                   returned false
     */
    public function onDrain(\Closure $callback): void
    {
        $this->drainCallbacks[] = $callback;
    }

    /**
     * Makes $handler the connection's owner: it is told of data, end, drain and close as the
     * callbacks are (just before them), and reading starts as with onData(). One handler at a
     * time; attaching another replaces it.
     */
    public function attach(ConnectionHandler $handler): void
    {
        $this->handler = $handler;
        if ($this->closed) {
            $handler->closed($this->closeReason);

            return;
        }
        $this->updateReadWatcher();
    }

    /**
     * Forgets every onData(), onEnd(), onDrain() and onClose() callback (and the attached
     * handler), so that another owner can
     * take the connection over (an HTTP connection that switched to WebSocket with a 101). Reading
     * stops until the new owner registers onData() or calls read(); bytes waiting to be sent stay
     * queued, in order, and so does the drain notification they may owe.
     */
    public function handOver(): void
    {
        $this->handler = null;
        $this->dataCallbacks = $this->endCallbacks = $this->drainCallbacks = $this->closeCallbacks = [];
        $this->updateReadWatcher();
    }

    /**
     * Stops reading: bytes stay in the kernel, and the peer is slowed down once its buffers fill.
     */
    public function pause(): void
    {
        $this->paused = true;
        $this->updateReadWatcher();
    }

    public function resume(): void
    {
        $this->paused = false;
        $this->updateReadWatcher();
        if ($this->tls) {
            $this->loop->defer($this->readTlsLeftover(...)); // bytes OpenSSL decrypted before the pause
        }
    }

    public function isPaused(): bool
    {
        return $this->paused;
    }

    /**
     * The next chunk of bytes, or null once the peer has closed its side (or the connection was
     * closed). One read at a time; it reads even while the connection is pause()d.
     *
     * @return Future<?string>
     */
    public function read(): Future
    {
        if ($this->pendingRead !== null) {
            throw new ReadPendingException('A read() on this connection is still pending: await it before calling read() again (one reader at a time).');
        }
        if ($this->closed || $this->readEnded) {
            if ($this->closeReason !== null) {
                return Future::rejected($this->loop, new ConnectionClosedException(
                    'The connection broke before this read: ' . $this->closeReason->getMessage(),
                    0,
                    $this->closeReason,
                ));
            }

            return Future::fulfilled($this->loop, null);
        }
        /** @var Deferred<?string> $deferred */
        $deferred = new Deferred($this->loop);
        $this->pendingRead = $deferred;
        $this->updateReadWatcher();

        return $deferred->future();
    }

    /**
     * Queues $data for sending. Returns false when more than the high-water mark is now pending:
     * stop writing until onDrain() fires (the data was still queued). Also false when the
     * connection broke during this write: onClose() callbacks then got the reason.
     *
     * @throws ConnectionClosedException after close() or end(), or once the connection broke
     */
    public function write(string $data): bool
    {
        if ($this->closed || $this->ending) {
            throw new ConnectionClosedException($this->closed
                ? 'Cannot write: the connection is closed. Check isWritable() first, or listen to onClose().'
                : 'Cannot write: end() was already called on this connection. Send the last bytes with end($data).');
        }
        if ($data === '') {
            return !$this->aboveMark;
        }
        if ($this->buffer === '') {
            // Nothing pending (so no write watcher, no drain owed): the kernel usually takes it all.
            $written = @fwrite($this->stream, $data);
            if ($written === \strlen($data)) {
                $this->sentTotal += $written;

                return true;
            }
            $this->buffer = $data;
            if (\is_int($written)) {
                $this->sentTotal += $written;
                $this->sent = $written;
            }
            $this->flush();
            if ($this->closed) {
                return false;
            }
        } else {
            $this->buffer .= $data;
        }
        if (\strlen($this->buffer) - $this->sent > $this->highWaterMark) {
            $this->aboveMark = true;

            return false;
        }

        return true;
    }

    /**
     * Writes $data, then half-closes the write side once everything is flushed. Reading goes on
     * until the peer closes too; then the connection closes. Calling it again does nothing.
     */
    public function end(?string $data = null): void
    {
        if ($this->closed || $this->ending) {
            return;
        }
        if ($data !== null && $data !== '') {
            $this->write($data);
            if ($this->isClosed()) {
                return;
            }
        }
        $this->ending = true;
        if ($this->buffer === '') {
            $this->shutdownWrite();
        }
    }

    /**
     * Closes both directions at once. Bytes still in the write buffer are dropped: use end() to
     * send them first.
     */
    public function close(): void
    {
        $this->closeWith(null);
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * Whether write() may be called (not closed, end() not called).
     */
    public function isWritable(): bool
    {
        return !$this->closed && !$this->ending;
    }

    /**
     * Bytes queued by write() that the kernel has not taken yet.
     */
    public function bufferedBytes(): int
    {
        return \strlen($this->buffer) - $this->sent;
    }

    /**
     * Bytes the kernel has taken for sending since the connection was made: it grows while the
     * peer reads, so a caller can tell a slow reader from one that stopped (see flushPending()).
     */
    public function sentBytes(): int
    {
        return $this->sentTotal;
    }

    /**
     * Hands the kernel what it takes of the pending bytes now, without waiting for the stream to
     * be reported writable: the kernel reports a socket writable only once a good part of its
     * send buffer is free, so a peer that reads slowly may otherwise show no progress for long.
     */
    public function flushPending(): void
    {
        if (!$this->closed && $this->buffer !== '') {
            $this->flush();
        }
    }

    /**
     * This side's address: tcp://ip:port or unix:///path (null when the socket has no name).
     */
    public function localAddress(): ?string
    {
        if ($this->localAddress === null && !$this->closed) {
            $this->localAddress = self::name($this->stream, false);
        }

        return $this->localAddress;
    }

    /**
     * The peer's address: tcp://ip:port or unix:///path (null when the peer has no name, as for
     * an unbound Unix client or a socket pair).
     */
    public function remoteAddress(): ?string
    {
        if ($this->remoteAddress === null && !$this->closed) {
            $this->remoteAddress = self::name($this->stream, true);
        }

        return $this->remoteAddress;
    }

    /**
     * @internal
     *
     * @param resource $stream
     */
    public static function name(mixed $stream, bool $remote): ?string
    {
        $meta = stream_get_meta_data($stream);
        $name = @stream_socket_get_name($stream, $remote);
        if ($name === false || $name === '' || $name === "\0") {
            return null;
        }
        if ($meta['stream_type'] === 'unix_socket' || str_starts_with($name, '/')) {
            return 'unix://' . $name;
        }
        $colon = strrpos($name, ':');
        if ($colon !== false && str_contains(substr($name, 0, $colon), ':')) {
            return 'tcp://[' . substr($name, 0, $colon) . ']' . substr($name, $colon);
        }

        return 'tcp://' . $name;
    }

    /**
     * @internal the loop: the socket is readable (the read watcher: one chunk is read, see the
     *           class comment) or writable (the write watcher: pending bytes are sent)
     */
    public function streamReady(int $id): void
    {
        if ($id !== $this->readWatcher) {
            $this->flush();

            return;
        }
        // The read, here rather than in a method of its own: one call fewer for every read.
        $size = $this->readSize;
        $data = @fread($this->stream, $size);
        if ($data === false) {
            $this->closeWith(new ConnectionLostException('Reading from the connection failed: ' . self::lastError()));

            return;
        }
        if ($data === '') {
            if (feof($this->stream)) {
                $this->handleEof();
            }

            return;
        }
        $length = \strlen($data);
        if ($length === $size) {
            if ($size === self::SMALL_READ) {
                // More is coming: the rest of this chunk now (a readiness event still reads one
                // chunk of up to CHUNK_SIZE), then big reads until the flow slows down.
                $more = @fread($this->stream, self::CHUNK_SIZE - self::SMALL_READ);
                if (\is_string($more)) {
                    $data .= $more; // a failure or the end shows at the next readiness
                }
                $this->readSize = self::CHUNK_SIZE;
            }
        } elseif ($length < self::SMALL_READ && $size !== self::SMALL_READ) {
            $this->readSize = self::SMALL_READ;
        }
        if ($this->tls) {
            $data = $this->drainTls($data);
        }
        $read = $this->pendingRead;
        if ($read !== null) {
            $this->pendingRead = null;
            $read->resolve($data);
            $this->updateReadWatcher();
        }
        if ($this->handler !== null) {
            $this->handler->dataReceived($data);
            if ($this->closed || $this->dataCallbacks === []) {
                // No loop entered on the usual path: under the tracing JIT a loop in a function,
                // even an empty one, ends the trace that reached it (and aborts it, again and
                // again, until the trace is given up to the interpreter).
                return;
            }
        }
        foreach ($this->dataCallbacks as $callback) {
            $callback($data);
            if ($this->closed) {
                return;
            }
        }
    }

    /**
     * Reads what OpenSSL already holds after $data, up to TLS_READ_MAX; past it the rest waits for
     * the next loop turn.
     */
    private function drainTls(string $data): string
    {
        while (\strlen($data) < self::TLS_READ_MAX) {
            $more = @fread($this->stream, self::CHUNK_SIZE);
            if ($more === false || $more === '') {
                return $data;
            }
            $data .= $more;
        }
        $this->loop->defer($this->readTlsLeftover(...));

        return $data;
    }

    private function readTlsLeftover(): void
    {
        if ($this->readWatcher !== null && !$this->closed) {
            $this->streamReady($this->readWatcher);
        }
    }

    /**
     * Enables TLS on this fresh connection (nothing read or written on it yet) as the client or
     * the server, with the stream context's "ssl" options $ssl (local_cert, local_pk, cafile,
     * verify_peer, peer_name...). The handshake runs on the loop; the future fails with a
     * TlsHandshakeException when it fails or takes more than $timeout seconds, and the connection
     * is then closed.
     *
     * @param array<string, mixed> $ssl
     *
     * @return Future<Connection> this connection, once the handshake is done
     */
    public function startTls(array $ssl, bool $server, float $timeout): Future
    {
        if ($this->tls || $this->handshake !== null || $this->closed || $this->readWatcher !== null || $this->pendingRead !== null || $this->buffer !== '') {
            throw new \LogicException('startTls() takes a fresh connection: nothing read, written or watched on it yet, and no TLS already.');
        }
        /** @var Deferred<Connection> $deferred */
        $deferred = new Deferred($this->loop);
        stream_context_set_option($this->stream, ['ssl' => $ssl]);
        $this->handshake = new TlsHandshake($this->loop, $this->stream, $server, $timeout, function (?string $error) use ($deferred): void {
            $this->handshake = null;
            if ($this->closed) {
                $deferred->reject(new TlsHandshakeException('The connection was closed during its TLS handshake.'));

                return;
            }
            if ($error !== null) {
                $exception = new TlsHandshakeException($error);
                $this->closeWith($exception);
                $deferred->reject($exception);

                return;
            }
            $this->tls = true;
            $deferred->resolve($this);
        });
        if ($deferred->isSettled()) {
            $this->handshake = null; // it ended within the constructor
        }

        return $deferred->future();
    }

    private function handleEof(): void
    {
        $this->readEnded = true;
        $this->updateReadWatcher();
        $read = $this->pendingRead;
        $this->pendingRead = null;
        $read?->resolve(null);
        $callbacks = $this->endCallbacks;
        $this->endCallbacks = [];
        $handler = $this->handler;
        $handler?->endReceived();
        foreach ($callbacks as $callback) {
            $callback();
        }
        if ($this->closed) {
            return;
        }
        if ($this->writeShut) {
            $this->close();
        } elseif ($callbacks === [] && $read === null && $handler === null) {
            $this->end();
        }
    }

    private function flush(): void
    {
        do {
            $pending = \strlen($this->buffer) - $this->sent;
            // The common case, a whole small buffer, is sent as it is; otherwise a slice from the
            // offset, so that a large buffer is never copied whole for a partial write.
            $slice = $this->sent === 0 && $pending <= self::WRITE_SLICE
                ? $this->buffer
                : substr($this->buffer, $this->sent, self::WRITE_SLICE);
            $written = @fwrite($this->stream, $slice);
            if ($written === false) {
                $this->closeWith(new ConnectionLostException('Writing to the connection failed: ' . self::lastError()));

                return;
            }
            $this->sentTotal += $written;
            if ($written === $pending) {
                $this->buffer = '';
                $this->sent = 0;

                break;
            }
            $this->sent += $written;
        } while ($written === \strlen($slice)); // the kernel took the whole slice: it may take more
        if ($this->buffer !== '') {
            if ($this->sent >= \strlen($this->buffer) >> 1) {
                // Cut off the sent part once it is the larger half: each cut copies no more than
                // was sent since the last one.
                $this->buffer = substr($this->buffer, $this->sent);
                $this->sent = 0;
            }
            // The connection is its own watcher: no closure, and once it closes (its watchers
            // cancelled) nothing keeps it in a cycle.
            $this->writeWatcher ??= $this->loop->watchWritable($this->stream, $this);

            return;
        }
        if ($this->writeWatcher !== null) {
            $this->loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        }
        if ($this->ending) {
            $this->shutdownWrite();
            if ($this->closed) {
                return;
            }
        }
        if ($this->aboveMark) {
            $this->aboveMark = false;
            if ($this->handler !== null) {
                $this->handler->drained();
                if ($this->closed) {
                    return;
                }
            }
            foreach ($this->drainCallbacks as $callback) {
                $callback();
                if ($this->closed) {
                    return;
                }
            }
        }
    }

    private function shutdownWrite(): void
    {
        if ($this->writeShut) {
            return;
        }
        $this->writeShut = true;
        // Fails only when the peer is already gone; reading then reports EOF or an error.
        @stream_socket_shutdown($this->stream, \STREAM_SHUT_WR);
        if ($this->readEnded) {
            $this->close();
        }
    }

    private function updateReadWatcher(): void
    {
        $want = !$this->closed && !$this->readEnded
            && ($this->pendingRead !== null || (!$this->paused && ($this->dataCallbacks !== [] || $this->handler !== null)));
        if ($want && $this->readWatcher === null) {
            $this->readWatcher = $this->loop->watchReadable($this->stream, $this);
        } elseif (!$want && $this->readWatcher !== null) {
            $this->loop->cancel($this->readWatcher);
            $this->readWatcher = null;
        }
    }

    private function closeWith(?\Throwable $reason): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        $this->closeReason = $reason;
        // Watchers go before the stream: stream_select throws on a closed resource.
        $this->handshake?->cancel();
        if ($this->readWatcher !== null) {
            $this->loop->cancel($this->readWatcher);
            $this->readWatcher = null;
        }
        if ($this->writeWatcher !== null) {
            $this->loop->cancel($this->writeWatcher);
            $this->writeWatcher = null;
        }
        $this->buffer = '';
        $this->sent = 0;
        fclose($this->stream);
        $read = $this->pendingRead;
        $this->pendingRead = null;
        if ($read !== null) {
            if ($reason === null) {
                $read->resolve(null);
            } else {
                $read->reject(new ConnectionClosedException('The connection broke during a read: ' . $reason->getMessage(), 0, $reason));
            }
        }
        $this->listener?->released($this);
        $callbacks = $this->closeCallbacks;
        $this->dataCallbacks = $this->endCallbacks = $this->drainCallbacks = $this->closeCallbacks = [];
        $handler = $this->handler;
        $this->handler = null;
        if ($handler !== null) {
            try {
                $handler->closed($reason);
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
        foreach ($callbacks as $callback) {
            try {
                $callback($reason);
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
    }

    private static function lastError(): string
    {
        $message = error_get_last()['message'] ?? 'unknown error';
        $at = strpos($message, '): ');

        return $at === false ? $message : substr($message, $at + 3);
    }
}
