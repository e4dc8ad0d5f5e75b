<?php

declare(strict_types=1);

namespace Nexus\Http\Server\Internal;

use Nexus\Http\HttpDate;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\RequestTask;
use Nexus\Http\Server\Upgrade;
use Nexus\Http\Server\Upgraded;
use Nexus\Io\Connection;
use Nexus\Runtime\Loop;

/**
 * The HTTP side of a protocol switch (a WebSocket, or any Upgrade): which 1xx answer may switch,
 * and the hand-over of the socket once the 101 is written. The request with an Upgrade field is
 * the last one its ServerConnection reads (see ServerConnection::parse()); that connection lets go
 * of its parser, budgets and deadline when the switch is done, and the Upgraded starts with the
 * bytes the client sent behind its request.
 *
 * @internal for ServerConnection
 */
final class ProtocolSwitch
{
    /**
     * Whether a handler's 1xx answer is a 101 that switches protocols, which only an upgrade
     * request may get.
     */
    public static function allows(RequestTask $task, Response $response): bool
    {
        return $response->upgrade !== null && isset($task->request?->headers()['upgrade']);
    }

    /**
     * Writes the 101 head, takes the socket from its HTTP handler (Connection::handOver()) and
     * gives it to the new protocol, which the server adopts (it counts against maxConnections and
     * is ended on stop()). Null when the client went away before: there is nothing to switch.
     */
    public static function begin(Connection $connection, Loop $loop, HttpServer $server, Response $response, Upgrade $upgrade): ?Upgraded
    {
        $connection->write(ResponseSerializer::switchingProtocols($response, HttpDate::now()));
        if ($connection->isClosed()) {
            return null;
        }
        $connection->handOver();
        $upgraded = $upgrade->takeOver($connection, $loop, $server);
        $server->adopt($upgraded);

        return $upgraded;
    }
}
