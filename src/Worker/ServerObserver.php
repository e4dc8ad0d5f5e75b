<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\RequestHandler;
use Nexus\Http\Server\HttpServer;

/**
 * What watches a served application from inside each worker (the admin layer's metrics and
 * view): HttpWorker and `nexus serve` call it at the two points of the bootstrap where it can hook
 * in. The worker layer knows only this interface, not metrics.
 */
interface ServerObserver
{
    /**
     * Before the application's own configuration: create what must see every actor from the
     * start. $context is null in a single-process server.
     */
    public function configure(Application $app, ActorSystem $system, ?WorkerContext $context): void;

    /**
     * The application's handler, as the server will call it: return it measured (or as it is).
     */
    public function handler(RequestHandler $handler): RequestHandler;

    /**
     * The server exists and is about to serve: register what reads it (connections), answer the
     * master's stats queries through $context->answerStats().
     */
    public function serving(HttpServer $server, ActorSystem $system, ?WorkerContext $context): void;
}
