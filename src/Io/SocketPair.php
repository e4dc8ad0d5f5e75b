<?php

declare(strict_types=1);

namespace Nexus\Io;

use Nexus\Io\Exception\SocketPairException;
use Nexus\Runtime\Loop;

/**
 * Two connected Unix stream sockets, e.g. between a supervisor and a worker process (each keeps
 * one end after fork).
 */
final class SocketPair
{
    private function __construct() {}

    /**
     * @return array{Connection, Connection}
     */
    public static function create(Loop $loop, int $writeHighWaterMark = Connection::DEFAULT_HIGH_WATER_MARK): array
    {
        $pair = @stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            throw new SocketPairException('Could not create a Unix socket pair: ' . (error_get_last()['message'] ?? 'unknown error') . '; is the process out of file descriptors (ulimit -n)?');
        }

        return [
            new Connection($loop, $pair[0], $writeHighWaterMark),
            new Connection($loop, $pair[1], $writeHighWaterMark),
        ];
    }
}
