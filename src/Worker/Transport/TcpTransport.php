<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Io\Connector;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * Links between machines (the nodes of a cluster): TCP with TCP_NODELAY on both ends, so an ask's
 * small frame leaves at once. Anyone on the network can connect, so the handshake is what keeps
 * strangers out: until a peer has proved it knows the cluster secret it may send frames of
 * Frames::HANDSHAKE_PAYLOAD bytes at most, and it gets nothing but the Challenge.
 */
final class TcpTransport implements Transport
{
    public function reaches(string $address): bool
    {
        return str_starts_with($address, 'tcp://');
    }

    public function connect(Loop $loop, string $address, float $timeout, int $writeHighWaterMark): Future
    {
        return Connector::connect($loop, $address, $timeout, $writeHighWaterMark, tcpNoDelay: true);
    }

    public function listen(Loop $loop, string $address, LoggerInterface $logger): Listener
    {
        return Listener::listen($loop, $address, new ListenOptions(tcpNoDelay: true), $logger);
    }
}
