<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

use Nexus\Io\Connection;
use Nexus\Runtime\Loop;

/**
 * What a 101 Switching Protocols response carries (Response::switchingProtocols()): the new
 * protocol's side of the connection, made once the server has written the 101.
 *
 * The server calls takeOver() with the socket after removing its own callbacks from it, counts
 * the Upgraded against ServerOptions::$maxConnections until it calls HttpServer::release(), ends
 * it on stop() (shutdown(), then abort() at the stop deadline), and finally calls start() with the
 * bytes the client sent right behind its request. Nothing more is parsed as HTTP on it.
 */
interface Upgrade
{
    /**
     * Builds the new protocol's connection without doing I/O yet (start() begins it).
     */
    public function takeOver(Connection $connection, Loop $loop, HttpServer $server): Upgraded;
}
