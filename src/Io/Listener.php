<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Io\Exception\ListenException;
use Nexus\Runtime\Descriptors;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * A listening TCP (tcp://127.0.0.1:8080, port 0 picks a free one) or Unix (unix:///path/to.sock)
 * socket that accepts connections on the loop.
 *
 * At maxConnections() open connections (ListenOptions::$maxConnections, by default what the
 * loop's driver can hold: see capacity()) it stops accepting until one of them closes: the kernel
 * keeps the newcomers in its backlog meanwhile, so clients wait rather than being refused.
 * close() stops listening; connections already accepted stay open.
 *
 * On a stream_select() loop every descriptor of the process counts against its limit, not only
 * this listener's connections: an accepted connection whose descriptor is at or above
 * FD_SETSIZE - ListenOptions::$reservedDescriptors (992 by default) is closed at once, before the
 * loop ever watches it, so that the loop keeps polling and the top descriptors stay free for
 * sockets opened later (a database connection, a link to another worker). Checking costs one
 * readlink() of /proc/self/fd per accept (Runtime\Descriptors). An epoll loop watches any
 * descriptor number; its bound is the descriptor limit, where accept() fails with EMFILE.
 *
 * When accept() fails for want of file descriptors (EMFILE, ENFILE) or socket memory, or a
 * connection was refused for its descriptor, it stops accepting for ListenOptions::$acceptBackoff
 * seconds instead of retrying on every loop turn (the listening socket stays readable, so that
 * would spin), logs a warning once per such episode, and tries again; the connections it has keep
 * being served, and the clients waiting meanwhile stay in the kernel's backlog.
 */
final class Listener
{
    /** @var resource */
    private readonly mixed $server;
    private readonly string $address;
    private readonly ?string $unixPath;
    private ?int $watcher = null;
    private bool $paused = false;
    private bool $closed = false;
    private ?int $backoffTimer = null;
    /** out of descriptors since the last successful accept (the warning is logged once) */
    private bool $exhausted = false;
    private readonly int $maxConnections;
    /** stream_select(): accepted descriptors must stay below FD_SETSIZE - the reserve */
    private readonly bool $checkNumbers;
    /** @var array<int, Connection> open connections by object id: they live until closed even if the handler drops them */
    private array $open = [];
    /** @var list<\Closure(Connection): void> */
    private array $connectionCallbacks = [];
    /** @var \Closure(resource, int): void */
    private readonly \Closure $acceptHandler;

    /**
     * @param resource $server
     */
    private function __construct(
        private readonly Loop $loop,
        mixed $server,
        private readonly ListenOptions $options,
        ?string $unixPath,
        private readonly ?LoggerInterface $logger = null,
    ) {
        $this->server = $server;
        $this->unixPath = $unixPath;
        $this->maxConnections = self::checkedCap($loop, $options);
        $this->checkNumbers = $loop->driver()->limitsDescriptorNumbers();
        $this->address = Connection::name($server, false)
            ?? throw new ListenException('The listening socket has no address; the operating system did not report where it is bound.');
        $this->acceptHandler = function (): void {
            $this->accept();
        };
        $this->updateWatcher();
    }

    /**
     * @throws ListenException when the address is malformed, in use or not permitted
     */
    public static function listen(Loop $loop, string $address, ListenOptions $options = new ListenOptions(), ?LoggerInterface $logger = null): self
    {
        $unixPath = null;
        if (str_starts_with($address, 'unix://')) {
            $unixPath = substr($address, 7);
        } elseif (!str_starts_with($address, 'tcp://')) {
            throw new ListenException("Could not listen on {$address}: the address needs a tcp:// or unix:// scheme (e.g. tcp://127.0.0.1:8080 or unix:///run/app.sock).");
        }
        self::checkedCap($loop, $options);
        $socketOptions = ['backlog' => $options->backlog];
        if ($options->reusePort) {
            $socketOptions['so_reuseport'] = true;
        }
        if ($options->tcpNoDelay && $unixPath === null) {
            $socketOptions['tcp_nodelay'] = true;
        }
        $context = stream_context_create(['socket' => $socketOptions]);
        $errno = 0;
        $errstr = '';
        $server = @stream_socket_server($address, $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        if ($server === false) {
            $reason = $errstr !== '' ? $errstr : (error_get_last()['message'] ?? 'unknown error');
            $hint = $unixPath !== null
                ? 'does the directory exist and is it writable, or is a stale socket file left there (remove it)?'
                : 'is the port in use (set reusePort on every listener to share it), or is the address not local?';
            throw new ListenException("Could not listen on {$address}: {$reason}; {$hint}");
        }
        stream_set_blocking($server, false);

        return new self($loop, $server, $options, $unixPath, $logger);
    }

    /**
     * Accepts on a socket that is already listening, such as one inherited from a parent process
     * (the worker pool's master opens one per worker). close() closes this process's copy.
     *
     * @param resource $server a listening stream socket
     */
    public static function fromSocket(Loop $loop, mixed $server, ListenOptions $options = new ListenOptions(), ?LoggerInterface $logger = null): self
    {
        stream_set_blocking($server, false);

        return new self($loop, $server, $options, null, $logger);
    }

    /**
     * How many connections a listener on $loop can hold at most: the driver's descriptor capacity
     * less $reservedDescriptors with epoll; ListenOptions::MAX_CONNECTIONS_LIMIT with
     * stream_select(). The default of ListenOptions::$maxConnections.
     */
    public static function capacity(Loop $loop, int $reservedDescriptors = 32): int
    {
        $driver = $loop->driver();

        return $driver->limitsDescriptorNumbers()
            ? ListenOptions::MAX_CONNECTIONS_LIMIT
            : max(1, $driver->capacity() - $reservedDescriptors);
    }

    /**
     * Open connections at most (see the class comment).
     */
    public function maxConnections(): int
    {
        return $this->maxConnections;
    }

    /**
     * The bound address, with the real port when port 0 was asked for: tcp://127.0.0.1:40123.
     */
    public function address(): string
    {
        return $this->address;
    }

    /**
     * @param \Closure(Connection): void $callback called with each accepted connection
     */
    public function onConnection(\Closure $callback): void
    {
        $this->connectionCallbacks[] = $callback;
    }

    /**
     * Stops accepting; connections wait in the kernel backlog until resume().
     */
    public function pause(): void
    {
        $this->paused = true;
        $this->updateWatcher();
    }

    public function resume(): void
    {
        $this->paused = false;
        $this->updateWatcher();
    }

    /**
     * @internal called by a connection of this listener when it closes
     */
    public function released(Connection $connection): void
    {
        unset($this->open[spl_object_id($connection)]);
        $this->updateWatcher();
    }

    /**
     * Connections accepted by this listener and not closed yet.
     */
    public function connectionCount(): int
    {
        return \count($this->open);
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /**
     * Stops listening and frees the address (a Unix socket file is removed). Accepted
     * connections stay open.
     */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->backoffTimer !== null) {
            $this->loop->cancel($this->backoffTimer);
            $this->backoffTimer = null;
        }
        $this->updateWatcher();
        fclose($this->server);
        if ($this->unixPath !== null) {
            @unlink($this->unixPath);
        }
        $this->connectionCallbacks = [];
    }

    /**
     * @throws ListenException when ListenOptions::$maxConnections is more than the loop can hold
     */
    private static function checkedCap(Loop $loop, ListenOptions $options): int
    {
        $capacity = self::capacity($loop, $options->reservedDescriptors);
        if ($options->maxConnections !== null && $options->maxConnections > $capacity) {
            $driver = $loop->driver();

            throw new ListenException(\sprintf(
                'ListenOptions::$maxConnections is %d, but the loop\'s %s driver holds at most %d connections (%d descriptors, %d reserved). %s',
                $options->maxConnections,
                $driver->name(),
                $capacity,
                $driver->capacity(),
                $options->reservedDescriptors,
                $driver->limitsDescriptorNumbers()
                    ? 'Lower it, run more worker processes, or let the loop use epoll (ext-ffi, Linux).'
                    : 'Lower it, or raise the descriptor limit (ulimit -n; the hard limit as root).',
            ));
        }

        return $options->maxConnections ?? $capacity;
    }

    private function accept(): void
    {
        for ($i = $this->options->acceptBatch; $i > 0 && \count($this->open) < $this->maxConnections; --$i) {
            // Timeout 0: the warning on "nothing left to accept" (or a lost race with another
            // worker on the same port) is expected.
            $stream = @stream_socket_accept($this->server, 0);
            if ($stream === false) {
                if (self::outOfResources()) {
                    $this->backOff(self::acceptError(), 'Raise the descriptor limit (ulimit -n) or lower maxConnections.');

                    return;
                }
                break;
            }
            $limit = Descriptors::FD_SETSIZE - $this->options->reservedDescriptors;
            $number = $this->checkNumbers ? Descriptors::numberFrom($stream, $limit) : null;
            if ($number !== null) {
                fclose($stream);
                $this->backOff(
                    "a connection got descriptor {$number}, and the loop takes none numbered {$limit} or more (stream_select() watches descriptors below " . Descriptors::FD_SETSIZE . ", {$this->options->reservedDescriptors} kept for other sockets); it was closed",
                    'Every descriptor of the process counts: lower maxConnections, hold fewer other descriptors, or run more workers.',
                );

                return;
            }
            if ($this->exhausted) {
                $this->exhausted = false;
                $this->logger?->info('Accepting connections on {address} again.', ['address' => $this->address]);
            }
            $connection = new Connection($this->loop, $stream, $this->options->writeHighWaterMark, $this);
            $this->open[spl_object_id($connection)] = $connection;
            try {
                foreach ($this->connectionCallbacks as $callback) {
                    $callback($connection);
                }
            } catch (\Throwable $e) {
                // A connection whose handler failed half-way has no sane state: drop it.
                $connection->close();
                $this->updateWatcher();
                $this->loop->reportError($e);

                continue;
            }
            if ($this->closed || $this->paused) {
                return; // a connection callback closed or paused this listener
            }
        }
        $this->updateWatcher();
    }

    private function backOff(string $reason, string $advice): void
    {
        if (!$this->exhausted) {
            $this->exhausted = true;
            $this->logger?->warning('Cannot accept connections on {address}: {reason}. Accepting pauses for {seconds} s at a time until it works again; open connections are still served. {advice}', [
                'address' => $this->address,
                'reason' => $reason,
                'seconds' => $this->options->acceptBackoff,
                'advice' => $advice,
                'connections' => \count($this->open),
            ]);
        }
        $this->backoffTimer = $this->loop->delay($this->options->acceptBackoff, function (): void {
            $this->backoffTimer = null;
            $this->updateWatcher();
        });
        $this->updateWatcher();
    }

    /**
     * Whether the accept() that just failed ran out of descriptors or memory, rather than finding
     * nothing to accept (or losing the race for it to another worker).
     */
    private static function outOfResources(): bool
    {
        $error = self::acceptError();

        return str_contains($error, 'Too many open files') // EMFILE, ENFILE
            || str_contains($error, 'No buffer space') // ENOBUFS
            || str_contains($error, 'Cannot allocate memory'); // ENOMEM
    }

    private static function acceptError(): string
    {
        $message = error_get_last()['message'] ?? '';
        $at = strpos($message, 'Accept failed: ');

        return $at === false ? $message : substr($message, $at + 15);
    }

    private function updateWatcher(): void
    {
        $want = !$this->closed && !$this->paused && $this->backoffTimer === null && \count($this->open) < $this->maxConnections;
        if ($want && $this->watcher === null) {
            $this->watcher = $this->loop->onReadable($this->server, $this->acceptHandler);
        } elseif (!$want && $this->watcher !== null) {
            $this->loop->cancel($this->watcher);
            $this->watcher = null;
        }
    }
}
