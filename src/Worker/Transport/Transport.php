<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * How a link reaches its peer: a Unix socket between the workers of one machine (UnixTransport),
 * TCP between machines (TcpTransport). Everything above it is one mechanism whatever the
 * transport: the same frames, handshake, batching, acknowledgements, bounds and failures
 * (PeerLink, InboundLink).
 */
interface Transport
{
    /**
     * Whether $address (unix:///path, tcp://host:port) is one this transport reaches.
     */
    public function reaches(string $address): bool;

    /**
     * Opens a connection to $address; fails after $timeout seconds.
     *
     * @return Future<Connection>
     */
    public function connect(Loop $loop, string $address, float $timeout, int $writeHighWaterMark): Future;

    /**
     * Listens on $address for links opened by peers.
     *
     * @throws \Nexus\Io\Exception\ListenException
     */
    public function listen(Loop $loop, string $address, LoggerInterface $logger): Listener;
}
