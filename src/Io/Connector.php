<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Io\Exception\ConnectException;
use Nexus\Runtime\Descriptors;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Opens outgoing connections without blocking the loop.
 *
 * Give IP addresses: a host name would be resolved by the operating system, which blocks. A socket
 * whose descriptor the loop cannot watch (1024 or more) fails the connect at once instead of
 * entering the loop.
 */
final class Connector
{
    private function __construct() {}

    /**
     * Connects to tcp://ip:port or unix:///path. The future fails with a ConnectException when the
     * peer refuses or the address is bad, and with a ConnectTimeoutException after $timeout seconds.
     * $tcpNoDelay sets TCP_NODELAY on a TCP socket (no Nagle delay for small writes).
     *
     * @return Future<Connection>
     */
    public static function connect(
        Loop $loop,
        string $address,
        float $timeout = 5.0,
        int $writeHighWaterMark = Connection::DEFAULT_HIGH_WATER_MARK,
        bool $tcpNoDelay = false,
    ): Future {
        if (!str_starts_with($address, 'tcp://') && !str_starts_with($address, 'unix://')) {
            return Future::rejected($loop, new ConnectException("Could not connect to {$address}: the address needs a tcp:// or unix:// scheme (e.g. tcp://127.0.0.1:8080)."));
        }
        $errno = 0;
        $errstr = '';
        $context = stream_context_create($tcpNoDelay && str_starts_with($address, 'tcp://') ? ['socket' => ['tcp_nodelay' => true]] : []);
        $stream = @stream_socket_client($address, $errno, $errstr, null, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT, $context);
        if ($stream === false) {
            $reason = $errstr !== '' ? $errstr : (error_get_last()['message'] ?? 'unknown error');

            return Future::rejected($loop, new ConnectException("Could not connect to {$address}: {$reason}; is a server listening there?"));
        }
        $unpollable = $loop->driver()->limitsDescriptorNumbers() ? Descriptors::pollError($stream) : null;
        if ($unpollable !== null) {
            fclose($stream);

            return Future::rejected($loop, new ConnectException("Could not connect to {$address}: the new socket got {$unpollable}, which the loop cannot watch (stream_select() takes descriptors below " . Descriptors::FD_SETSIZE . '); hold fewer descriptors in this process or spread the work over more workers.'));
        }
        stream_set_blocking($stream, false);

        return (new ConnectAttempt($loop, $stream, $address, $timeout, $writeHighWaterMark))->future();
    }

}
