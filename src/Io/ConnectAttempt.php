<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Io\Exception\ConnectException;
use Nexus\Io\Exception\ConnectTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * @internal One asynchronous connect in flight: done when the socket turns writable, failed when
 *           the timer fires first.
 */
final class ConnectAttempt
{
    /** @var Deferred<Connection> */
    private readonly Deferred $deferred;
    private readonly int $watcher;
    private readonly int $timer;

    /**
     * @param resource $stream a socket with a connect in progress
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly mixed $stream,
        private readonly string $address,
        private readonly float $timeout,
        private readonly int $writeHighWaterMark,
    ) {
        /** @var Deferred<Connection> $deferred */
        $deferred = new Deferred($loop);
        $this->deferred = $deferred;
        $this->watcher = $loop->onWritable($stream, function (): void {
            $this->complete();
        });
        $this->timer = $loop->delay($timeout, function (): void {
            $this->timeOut();
        });
    }

    /**
     * @return Future<Connection>
     */
    public function future(): Future
    {
        return $this->deferred->future();
    }

    private function complete(): void
    {
        $this->loop->cancel($this->watcher);
        $this->loop->cancel($this->timer);
        $error = $this->socketError();
        if ($error !== null) {
            fclose($this->stream);
            $this->deferred->reject(new ConnectException("Could not connect to {$this->address}: {$error}; is a server listening there?"));

            return;
        }
        $this->deferred->resolve(new Connection($this->loop, $this->stream, $this->writeHighWaterMark));
    }

    private function timeOut(): void
    {
        $this->loop->cancel($this->watcher);
        fclose($this->stream);
        $this->deferred->reject(new ConnectTimeoutException(sprintf(
            'Could not connect to %s within %.3f s; is the server overloaded or its backlog full? Raise the timeout if it is just slow.',
            $this->address,
            $this->timeout,
        )));
    }

    /**
     * Why the connect failed, or null when it succeeded.
     */
    private function socketError(): ?string
    {
        if (\function_exists('socket_import_stream')) {
            $socket = @socket_import_stream($this->stream);
            if ($socket !== false) {
                $code = socket_get_option($socket, \SOL_SOCKET, \SO_ERROR);
                if ($code === 0) {
                    return null;
                }
                if (\is_int($code)) {
                    return socket_strerror($code) . " (errno {$code})";
                }
            }
        }

        return @stream_socket_get_name($this->stream, true) === false ? 'the connection was refused or reset' : null;
    }
}
