<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Actor\ActorSystem;
use Nexus\Admin\AdminAddress;
use Nexus\Admin\AdminServer;
use Nexus\Admin\CheckResult;
use Nexus\Admin\HealthChecks;
use Nexus\Admin\ServedObservability;
use Nexus\Http\Application;
use Nexus\Http\RequestHandler;
use Nexus\Http\Server\HttpServer;
use Nexus\Log\StderrLogger;
use Nexus\Persistence\StoreLocation;
use Nexus\Postgres\PgConnection;
use Nexus\Runtime\Loop;
use Nexus\Worker\ServerObserver;
use Nexus\Worker\WorkerContext;

/**
 * The admin listener of a single-process `nexus serve`: the process's own metrics and view
 * (ServedObservability), served by an AdminServer on the same loop as the application, opened
 * once the server exists. A port it cannot take fails serving() with a ListenException, which
 * `nexus serve` reports before anything is served. With a worker pool the listener lives in the
 * master instead (PoolView).
 *
 * @internal
 */
final class StandaloneAdmin implements ServerObserver
{
    private readonly ServedObservability $observability;
    private ?AdminServer $admin = null;

    /**
     * @param \Closure(AdminServer): void $listening told once the listener listens
     */
    public function __construct(
        private readonly AdminAddress $address,
        private readonly StoreLocation $store,
        private readonly \Closure $listening,
    ) {
        $this->observability = new ServedObservability();
    }

    public function configure(Application $app, ActorSystem $system, ?WorkerContext $context): void
    {
        $this->observability->configure($app, $system, $context);
    }

    public function handler(RequestHandler $handler): RequestHandler
    {
        return $this->observability->handler($handler);
    }

    public function serving(HttpServer $server, ActorSystem $system, ?WorkerContext $context): void
    {
        $this->observability->serving($server, $system, $context);
        $view = $this->observability->view() ?? throw new \LogicException('configure() made the view');
        $checks = self::checks($system->loop, $this->store)->add('actor-system', static fn(): CheckResult => $system->isTerminated() ? CheckResult::fail('terminated') : CheckResult::ok('running'));
        $admin = new AdminServer($system->loop, $this->observability->registry()->snapshot(...), $view, $checks, 'nexus', new StderrLogger());
        $admin->listen($this->address);
        $this->admin = $admin;
        ($this->listening)($admin);
    }

    /**
     * The server begins to stop: so does the admin listener (its live feeds end properly).
     */
    public function stop(): void
    {
        $this->admin?->stop();
    }

    /**
     * The readiness checks both modes share: the PostgreSQL store answers, when it is the store.
     */
    public static function checks(Loop $loop, StoreLocation $store): HealthChecks
    {
        $checks = new HealthChecks($loop);
        $config = $store->postgres;
        if ($config !== null) {
            $checks->add('store', static function () use ($loop, $config): CheckResult {
                $started = microtime(true);
                $connection = PgConnection::connectAsync($loop, $config)->await(2.0);
                try {
                    $connection->query('SELECT 1');
                } finally {
                    $connection->close();
                }

                return CheckResult::ok(\sprintf('PostgreSQL %s:%d answered SELECT 1 in %.1f ms', $config->host, $config->port, (microtime(true) - $started) * 1000));
            });
        }

        return $checks;
    }
}
