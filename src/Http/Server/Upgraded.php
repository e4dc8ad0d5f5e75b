<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

/**
 * A connection that switched protocols (see Upgrade), as the HTTP server keeps it: it counts
 * against ServerOptions::$maxConnections and is ended when the server stops. It must call
 * HttpServer::release() once its socket has closed.
 */
interface Upgraded
{
    /**
     * Begins the new protocol; $buffered holds the bytes the client sent after its request.
     */
    public function start(string $buffered): void;

    /**
     * The server stops: end the connection gracefully (a WebSocket sends close 1001). May be
     * called before start().
     */
    public function shutdown(): void;

    /**
     * The server's stop deadline has passed: close the socket at once.
     */
    public function abort(): void;
}
