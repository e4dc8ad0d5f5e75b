<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Io\Exception\ListenException;
use Nexus\Runtime\Loop;

/**
 * A listening TCP (tcp://127.0.0.1:8080, port 0 picks a free one) or Unix (unix:///path/to.sock)
 * socket that accepts connections on the loop.
 *
 * At ListenOptions::$maxConnections open connections it stops accepting until one of them closes:
 * the kernel keeps the newcomers in its backlog meanwhile, so clients wait rather than being
 * refused. close() stops listening; connections already accepted stay open.
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
    ) {
        $this->server = $server;
        $this->unixPath = $unixPath;
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
    public static function listen(Loop $loop, string $address, ListenOptions $options = new ListenOptions()): self
    {
        $unixPath = null;
        if (str_starts_with($address, 'unix://')) {
            $unixPath = substr($address, 7);
        } elseif (!str_starts_with($address, 'tcp://')) {
            throw new ListenException("Could not listen on {$address}: the address needs a tcp:// or unix:// scheme (e.g. tcp://127.0.0.1:8080 or unix:///run/app.sock).");
        }
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

        return new self($loop, $server, $options, $unixPath);
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
        $this->updateWatcher();
        fclose($this->server);
        if ($this->unixPath !== null) {
            @unlink($this->unixPath);
        }
        $this->connectionCallbacks = [];
    }

    private function accept(): void
    {
        for ($i = $this->options->acceptBatch; $i > 0 && \count($this->open) < $this->options->maxConnections; --$i) {
            // Timeout 0: the warning on "nothing left to accept" (or a lost race with another
            // worker on the same port) is expected.
            $stream = @stream_socket_accept($this->server, 0);
            if ($stream === false) {
                break;
            }
            $connection = new Connection($this->loop, $stream, $this->options->writeHighWaterMark);
            $key = spl_object_id($connection);
            $this->open[$key] = $connection;
            $connection->onClose(function () use ($key): void {
                unset($this->open[$key]);
                $this->updateWatcher();
            });
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

    private function updateWatcher(): void
    {
        $want = !$this->closed && !$this->paused && \count($this->open) < $this->options->maxConnections;
        if ($want && $this->watcher === null) {
            $this->watcher = $this->loop->onReadable($this->server, $this->acceptHandler);
        } elseif (!$want && $this->watcher !== null) {
            $this->loop->cancel($this->watcher);
            $this->watcher = null;
        }
    }
}
