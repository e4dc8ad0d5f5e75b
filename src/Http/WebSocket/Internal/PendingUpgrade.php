<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket\Internal;

use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\Upgrade;
use Nexus\Http\Server\Upgraded;
use Nexus\Http\WebSocket\HandshakeResult;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketHandler;
use Nexus\Io\Connection;
use Nexus\Runtime\Loop;

/**
 * What a WebSocket route's 101 carries from the handshake to the server: the handler chosen for
 * the connection and what the handshake agreed (subprotocol, permessage-deflate).
 *
 * @internal
 */
final readonly class PendingUpgrade implements Upgrade
{
    public function __construct(
        private Endpoint $endpoint,
        private WebSocketHandler $handler,
        private HandshakeResult $result,
    ) {}

    public function takeOver(Connection $connection, Loop $loop, HttpServer $server): Upgraded
    {
        $socket = new WebSocketConnection($loop, $connection, $this->endpoint->options, $this->result->subprotocol, $this->result->deflate);

        return new Session($this->endpoint, $this->handler, $socket, $loop, $server);
    }
}
