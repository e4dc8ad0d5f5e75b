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
 * Links between the workers of one machine: Unix sockets in the pool's private runtime directory
 * (mode 0700), so only processes of this user can even try the handshake.
 */
final class UnixTransport implements Transport
{
    public function reaches(string $address): bool
    {
        return str_starts_with($address, 'unix://');
    }

    public function connect(Loop $loop, string $address, float $timeout, int $writeHighWaterMark): Future
    {
        return Connector::connect($loop, $address, $timeout, $writeHighWaterMark);
    }

    public function listen(Loop $loop, string $address, LoggerInterface $logger): Listener
    {
        return Listener::listen($loop, $address, new ListenOptions(), $logger);
    }
}
