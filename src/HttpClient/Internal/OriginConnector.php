<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Internal;

use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\Exception\ConnectException;
use Nexus\HttpClient\Exception\ConnectTimeoutException;
use Nexus\HttpClient\Exception\TlsException;
use Nexus\HttpClient\Resolver;
use Nexus\Pool\PoolConnector;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Opens connections to one origin for its pool, without blocking the loop: the host name through
 * the Resolver, a non-blocking TCP connect to each address in turn until one answers, then for
 * https the TLS handshake driven from the socket's readiness (stream_socket_enable_crypto() on a
 * non-blocking stream returns 0 while it needs more bytes). All of it within connectTimeout.
 *
 * @internal
 *
 * @implements PoolConnector<HttpConnection>
 */
final class OriginConnector implements PoolConnector
{
    public function __construct(
        private readonly Loop $loop,
        private readonly Target $target,
        private readonly ClientOptions $options,
        private readonly Resolver $resolver,
    ) {}

    public function connect(): Future
    {
        /** @var Deferred<HttpConnection> $deferred */
        $deferred = new Deferred($this->loop);
        $state = new ConnectState($deferred);
        $state->timer = $this->loop->delay($this->options->connectTimeout, function () use ($state): void {
            $state->timer = null;
            $this->abort($state, new ConnectTimeoutException($this->options->connectTimeout, \sprintf(
                'Could not connect to %s within %.3f s (connectTimeout%s): is the server overloaded or unreachable? Raise connectTimeout if it is just slow.',
                $this->target->origin,
                $this->options->connectTimeout,
                $state->handshaking ? ', during the TLS handshake' : '',
            )));
        });
        $this->resolver->resolve($this->target->host)->onSettle(function (?\Throwable $error, mixed $addresses) use ($state): void {
            if ($state->deferred->isSettled()) {
                return;
            }
            if ($error !== null || !\is_array($addresses) || $addresses === []) {
                $this->abort($state, $error instanceof ConnectException ? $error : new ConnectException("Cannot resolve {$this->target->host}: " . ($error?->getMessage() ?? 'no address'), 0, $error));

                return;
            }
            /** @var list<string> $addresses */
            $state->addresses = $addresses;
            $this->attempt($state);
        });

        return $deferred->future();
    }

    public function isUsable(object $connection): bool
    {
        return !$connection->closed && $connection->exchange === null;
    }

    public function reset(object $connection): ?Future
    {
        return null;
    }

    public function close(object $connection): void
    {
        $connection->close();
    }

    private function attempt(ConnectState $state): void
    {
        $address = $state->addresses[$state->next++] ?? null;
        if ($address === null) {
            $this->abort($state, new ConnectException(\sprintf('Could not connect to %s: %s. Is a server listening there?', $this->target->origin, $state->lastError)));

            return;
        }
        $uri = str_contains($address, ':') ? "tcp://[{$address}]:{$this->target->port}" : "tcp://{$address}:{$this->target->port}";
        $context = stream_context_create($this->target->tls ? ['ssl' => $this->options->tls->contextFor($this->target->host)] : []);
        $errno = 0;
        $errstr = '';
        $stream = @stream_socket_client($uri, $errno, $errstr, null, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT, $context);
        if ($stream === false) {
            $state->lastError = "{$uri}: " . ($errstr !== '' ? $errstr : 'connect failed');
            $this->attempt($state);

            return;
        }
        stream_set_blocking($stream, false);
        $state->stream = $stream;
        $state->watcher = $this->loop->onWritable($stream, function () use ($state, $uri): void {
            $this->connected($state, $uri);
        });
    }

    private function connected(ConnectState $state, string $uri): void
    {
        $this->unwatch($state);
        $stream = $state->stream;
        \assert($stream !== null);
        $error = self::socketError($stream);
        if ($error !== null) {
            fclose($stream);
            $state->stream = null;
            $state->lastError = "{$uri}: {$error}";
            $this->attempt($state);

            return;
        }
        if (\function_exists('socket_import_stream')) {
            $socket = @socket_import_stream($stream);
            if ($socket !== false) {
                @socket_set_option($socket, \SOL_TCP, \TCP_NODELAY, 1);
            }
        }
        if (!$this->target->tls) {
            $this->done($state);

            return;
        }
        $state->handshaking = true;
        $this->handshake($state);
    }

    private function handshake(ConnectState $state): void
    {
        $stream = $state->stream;
        \assert($stream !== null);
        error_clear_last();
        $result = @stream_socket_enable_crypto($stream, true, \STREAM_CRYPTO_METHOD_TLS_CLIENT);
        if ($result === 0) {
            $state->watcher ??= $this->loop->onReadable($stream, function () use ($state): void {
                $this->handshake($state);
            });

            return;
        }
        $this->unwatch($state);
        if ($result === true) {
            $this->done($state);

            return;
        }
        $reason = error_get_last()['message'] ?? 'the handshake failed';
        $reason = preg_replace('/^stream_socket_enable_crypto\(\): /', '', $reason) ?? $reason;
        $this->abort($state, new TlsException(\sprintf(
            'The TLS handshake with %s failed: %s. %s',
            $this->target->origin,
            $reason,
            str_contains($reason, 'certificate verify failed') || str_contains($reason, 'did not match')
                ? 'The server\'s certificate did not verify: give TlsOptions a caFile with its CA, or a peerName it was issued for.'
                : 'Does the server speak TLS on this port?',
        )));
    }

    private function done(ConnectState $state): void
    {
        if ($state->timer !== null) {
            $this->loop->cancel($state->timer);
            $state->timer = null;
        }
        $stream = $state->stream;
        \assert($stream !== null);
        $state->stream = null;
        $state->deferred->resolve(new HttpConnection(
            $this->loop,
            $stream,
            $this->target->origin,
            $this->target->tls,
            new ResponseParser($this->options->maxHeadSize, $this->options->maxHeaderCount),
        ));
    }

    private function abort(ConnectState $state, \Throwable $error): void
    {
        if ($state->deferred->isSettled()) {
            return;
        }
        $this->unwatch($state);
        if ($state->timer !== null) {
            $this->loop->cancel($state->timer);
            $state->timer = null;
        }
        if ($state->stream !== null) {
            fclose($state->stream);
            $state->stream = null;
        }
        $state->deferred->reject($error);
    }

    private function unwatch(ConnectState $state): void
    {
        if ($state->watcher !== null) {
            $this->loop->cancel($state->watcher);
            $state->watcher = null;
        }
    }

    /**
     * Why the connect failed, or null when it succeeded.
     *
     * @param resource $stream
     */
    private static function socketError(mixed $stream): ?string
    {
        if (\function_exists('socket_import_stream')) {
            $socket = @socket_import_stream($stream);
            if ($socket !== false) {
                $code = socket_get_option($socket, \SOL_SOCKET, \SO_ERROR);
                if ($code === 0) {
                    return null;
                }
                if (\is_int($code)) {
                    return socket_strerror($code);
                }
            }
        }

        return @stream_socket_get_name($stream, true) === false ? 'the connection was refused or reset' : null;
    }
}
