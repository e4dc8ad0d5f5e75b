<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Exception\ListenException;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Metrics\Snapshot;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * The admin listener: the AdminApp on its own HTTP server, never on the application's port.
 *
 *     $admin = new AdminServer($loop, $registry->snapshot(...), new ActorSystemView($system, $registry));
 *     $admin->listen(AdminAddress::parse('127.0.0.1:9090'));
 *
 * Trust: clients on this machine (a loopback client address: 127.0.0.0/8, ::1) see the
 * readiness details; any other client, whatever address the listener has, sees only ok/failed
 * per check.
 *
 * Bounds: at most MAX_CONNECTIONS connections per listener (more wait in the backlog), small
 * request limits (the parser's defaults), the Feed's client cap. stop() closes the listeners,
 * ends every live feed, and settles when the connections are closed (at the deadline at most).
 *
 * @phpstan-import-type Families from Snapshot
 */
final class AdminServer
{
    public const MAX_CONNECTIONS = 64;

    public readonly Feed $feed;
    public readonly HealthChecks $checks;
    private readonly AdminApp $app;
    /** @var list<HttpServer> */
    private array $servers = [];
    /** @var list<resource> */
    private array $sockets = [];

    /**
     * @param \Closure(): array{families: Families} $metrics the snapshot to expose (a registry's, or the master's merge)
     */
    public function __construct(
        private readonly Loop $loop,
        \Closure $metrics,
        SystemView $view,
        ?HealthChecks $checks = null,
        string $name = 'nexus',
        private readonly ?LoggerInterface $logger = null,
        float $feedInterval = 1.0,
    ) {
        $this->checks = $checks ?? new HealthChecks($loop);
        $this->feed = new Feed($loop, $view, $metrics, $name, $feedInterval);
        $this->app = new AdminApp($metrics, $this->feed, $this->checks, $logger);
    }

    /**
     * Starts listening; returns the bound address (tcp://127.0.0.1:9090, the real port when 0
     * was asked for).
     *
     * @throws \Nexus\Io\Exception\ListenException when the address cannot be bound
     */
    public function listen(AdminAddress $address): string
    {
        $server = new HttpServer(
            $this->loop,
            $this->app->handler(),
            new ServerOptions(maxConnections: self::MAX_CONNECTIONS, keepAliveTimeout: 30.0),
            $this->logger,
        );
        $context = stream_context_create(['socket' => ['backlog' => 128, 'tcp_nodelay' => true]]);
        $errno = 0;
        $errstr = '';
        $socket = @stream_socket_server($address->uri(), $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        if ($socket === false) {
            throw new ListenException(\sprintf(
                'Could not open the admin listener on %s: %s. Is another program (another nexus serve?) using that port? Choose another with --admin=HOST:PORT, or --admin=off to run without it.',
                $address,
                $errstr !== '' ? $errstr : (error_get_last()['message'] ?? 'unknown error'),
            ));
        }
        $this->sockets[] = $socket;
        $server->serve(Listener::fromSocket($this->loop, $socket, new ListenOptions(maxConnections: self::MAX_CONNECTIONS, tcpNoDelay: true), $this->logger));
        $this->servers[] = $server;

        return $server->address();
    }

    /**
     * In a process forked from this one (a worker), closes its copies of the listening sockets
     * without touching the loop (which belongs to the parent), so that a worker never holds the
     * admin port.
     */
    public function closeInheritedSockets(): void
    {
        foreach ($this->sockets as $socket) {
            if (\is_resource($socket)) {
                @fclose($socket);
            }
        }
        $this->sockets = [];
    }

    /**
     * @return list<string>
     */
    public function addresses(): array
    {
        $addresses = [];
        foreach ($this->servers as $server) {
            $addresses = [...$addresses, ...$server->addresses()];
        }

        return $addresses;
    }

    /**
     * @return Future<array<null>>
     */
    public function stop(float $deadline = 2.0): Future
    {
        $this->feed->stop();
        $stopping = [];
        foreach ($this->servers as $server) {
            $stopping[] = $server->stop($deadline);
        }

        return Future::all($stopping);
    }
}
