<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Runtime\Loop;

/**
 * @internal One TLS handshake in flight on a non-blocking socket (Connection::startTls()):
 *           stream_socket_enable_crypto() is called again each time the socket turns readable
 *           (it returns 0 while it needs more bytes) until it succeeds or fails, or the timer
 *           fires first. $done is called once, with null or why it failed.
 */
final class TlsHandshake
{
    private ?int $watcher = null;
    private ?int $timer;
    private bool $finished = false;
    private readonly int $method;

    /**
     * @param resource                 $stream
     * @param \Closure(?string): void $done
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly mixed $stream,
        bool $server,
        float $timeout,
        private readonly \Closure $done,
    ) {
        $this->method = $server ? \STREAM_CRYPTO_METHOD_TLS_SERVER : \STREAM_CRYPTO_METHOD_TLS_CLIENT;
        $this->timer = $loop->delay($timeout, function () use ($timeout): void {
            $this->timer = null;
            $this->finish(\sprintf('The TLS handshake did not finish within %.3f s: is the peer speaking TLS, and not overloaded?', $timeout));
        });
        $loop->unreference($this->timer); // the socket's watcher keeps the loop alive meanwhile
        $this->step();
    }

    /**
     * The connection is closing: stop watching its socket (before it is closed) and fail.
     */
    public function cancel(): void
    {
        $this->finish('the connection was closed during the handshake');
    }

    private function step(): void
    {
        if ($this->finished) {
            return;
        }
        error_clear_last();
        $result = @stream_socket_enable_crypto($this->stream, true, $this->method);
        if ($result === 0) {
            $this->watcher ??= $this->loop->onReadable($this->stream, $this->step(...));

            return;
        }
        if ($result === true) {
            $this->finish(null);

            return;
        }
        $reason = error_get_last()['message'] ?? 'the peer closed the connection';
        $reason = preg_replace('/^stream_socket_enable_crypto\(\): /', '', $reason) ?? $reason;
        $this->finish("The TLS handshake failed: {$reason}");
    }

    private function finish(?string $error): void
    {
        if ($this->finished) {
            return;
        }
        $this->finished = true;
        if ($this->watcher !== null) {
            $this->loop->cancel($this->watcher);
            $this->watcher = null;
        }
        if ($this->timer !== null) {
            $this->loop->cancel($this->timer);
            $this->timer = null;
        }
        ($this->done)($error);
    }
}
