<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Actor\ActorSystem;
use Nexus\Admin\AdminServer;
use Nexus\Admin\CheckResult;
use Nexus\Admin\HealthChecks;
use Nexus\Admin\PoolView;
use Nexus\Admin\ServedObservability;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Exception\ListenException;
use Nexus\Io\ListenOptions;
use Nexus\Log\StderrLogger;
use Nexus\Persistence\StoreLocation;
use Nexus\Postgres\PgConnection;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Loop;
use Nexus\Worker\Exception\PoolStartException;
use Nexus\Worker\HttpWorker;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\WorkerPool;
use Nexus\Worker\Workers;
use Psr\Log\LogLevel;

/**
 * `nexus serve [APP_FILE] --host=127.0.0.1 --port=8080 --workers=N [--no-jit] [--handler-timeout=S]
 * [--allowed-hosts=a.example,b.example] [--admin=127.0.0.1:9090|off]`
 *
 * Serves an application over HTTP/1.1 until SIGINT or SIGTERM, then stops gracefully: no new
 * connections, requests in flight finish (10 s at most), then the actor system shuts down.
 * With more than one worker a master process supervises the workers (WorkerPool); with one, the
 * single process serves by itself.
 *
 * An application file returns a closure that declares routes and starts actors:
 *
 *     return static function (Nexus\Http\Application $app, Nexus\Actor\ActorSystem $system): void {
 *         $app->get('/', fn() => 'Hello');
 *     };
 */
final class ServeCommand implements Command, HasUsage
{
    private const STOP_DEADLINE = 10.0;

    public function name(): string
    {
        return 'serve';
    }

    public function description(): string
    {
        return 'Serve an application (default: the demo app) over HTTP/1.1';
    }

    public function run(array $args, $stdout, $stderr): int
    {
        $options = ServeOptions::parse($args);
        if ($options->help) {
            fwrite($stdout, $this->usage());

            return self::SUCCESS;
        }
        if ($options->jit) {
            $problem = JitReexec::ensure(self::commandLine());
            if ($problem !== null) {
                fwrite($stderr, "nexus serve: {$problem}\n");
            }
        }
        try {
            $store = StoreLocation::fromOptions($options->dataDir, $options->store);
        } catch (\InvalidArgumentException $e) {
            throw new UsageException($e->getMessage(), 0, $e);
        }
        // Each worker opens the store itself, after the fork.
        $configure = $options->appFile === null
            ? static function (Application $app, ActorSystem $system, Workers $workers) use ($store): void {
                DemoApp::configure($app, $system, $workers, $store->open($system));
            }
        : AppFile::load($options->appFile, $store);
        $serverOptions = new ServerOptions(handlerTimeout: $options->handlerTimeout, allowedHosts: $options->allowedHosts);
        fwrite($stdout, "Durable actors are kept in {$store->describe()}.\n");
        $poolOptions = new PoolOptions(
            workers: $options->workers,
            host: $options->host,
            port: $options->port,
            stopTimeout: self::STOP_DEADLINE,
            maxRequests: $options->maxRequests,
            maxMemory: $options->maxMemory,
        );
        if ($poolOptions->workerCount() > 1) {
            return $this->runPool($options, $poolOptions, $serverOptions, $configure, $store, $stdout, $stderr);
        }

        $loop = new Loop();
        $loop->collectCyclesInBatches();
        $logger = new StderrLogger();
        $system = new ActorSystem('nexus', $logger, $loop);
        $app = new Application($system, logger: $logger);
        $observability = $options->admin === null ? null : new ServedObservability();
        $observability?->configure($app, $system, null);
        $configure($app, $system, Workers::single($system));
        $server = new HttpServer($loop, $observability === null ? $app->handler() : $observability->handler($app->handler()), $serverOptions, $logger);
        $observability?->serving($server, $system, null);
        $admin = null;
        try {
            $server->listen("tcp://{$options->host}:{$options->port}", new ListenOptions(tcpNoDelay: true));
            if ($observability !== null && $options->admin !== null) {
                $view = $observability->view() ?? throw new \LogicException('configure() made the view');
                $checks = self::checks($loop, $store)->add('actor-system', static fn(): CheckResult => $system->isTerminated() ? CheckResult::fail('terminated') : CheckResult::ok('running'));
                $admin = new AdminServer($loop, $observability->registry()->snapshot(...), $view, $checks, 'nexus', $logger);
                $admin->listen($options->admin);
            }
        } catch (ListenException $e) {
            fwrite($stderr, "nexus serve: {$e->getMessage()}\n");

            return self::FAILURE;
        }

        $stopping = false;
        $stop = static function (int $signal) use (&$stopping, $server, $system, $stdout, $admin): void {
            if ($stopping) {
                return;
            }
            $stopping = true;
            fwrite($stdout, sprintf("Signal %d: stopping (requests in flight get %.0f s to finish).\n", $signal, self::STOP_DEADLINE));
            $admin?->stop();
            $server->stop(self::STOP_DEADLINE)->onSettle(static function () use ($system): void {
                $system->shutdown();
            });
        };
        $watchers = [$loop->onSignal(\SIGINT, $stop), $loop->onSignal(\SIGTERM, $stop)];

        fwrite($stdout, sprintf(
            "Nexus is serving %s on %s (1 worker, %s; %s). Stop it with Ctrl+C.\n",
            $options->appFile ?? 'the demo app',
            str_replace('tcp://', 'http://', $server->address()),
            JitReexec::isActive() ? 'OPcache + tracing JIT' : 'no JIT',
            self::loopDescription($loop, $server->maxConnections()),
        ));
        self::announceAdmin($admin, $stdout);
        $system->run();
        foreach ($watchers as $watcher) {
            $loop->cancel($watcher);
        }
        fwrite($stdout, "Stopped.\n");

        return self::SUCCESS;
    }

    /**
     * @param \Closure(Application, ActorSystem, Workers): void $configure
     * @param resource $stdout
     * @param resource $stderr
     */
    private function runPool(ServeOptions $options, PoolOptions $poolOptions, ServerOptions $serverOptions, \Closure $configure, StoreLocation $store, mixed $stdout, mixed $stderr): int
    {
        // The master logs the pool's life (workers started, replaced, recycled) at info level.
        $observer = $options->admin === null ? null : new ServedObservability();
        $pool = new WorkerPool(new HttpWorker($configure, $serverOptions, new StderrLogger(), $observer), $poolOptions, new StderrLogger(LogLevel::INFO));
        $admin = null;
        if ($options->admin !== null) {
            // The admin listener lives in the master: it asks the workers for their figures over
            // their control channels (PoolView), so that it answers while any worker is stuck.
            $view = new PoolView($pool);
            $checks = self::checks($pool->loop(), $store)->add('workers', static function () use ($view): CheckResult {
                [$ok, $detail] = $view->workersUp();

                return $ok ? CheckResult::ok($detail) : CheckResult::fail($detail);
            });
            $admin = new AdminServer($pool->loop(), $view->metrics(...), $view, $checks, 'nexus', new StderrLogger());
            try {
                $admin->listen($options->admin);
            } catch (ListenException $e) {
                fwrite($stderr, "nexus serve: {$e->getMessage()}\n");

                return self::FAILURE;
            }
            $pool->afterFork($admin->closeInheritedSockets(...));
            $pool->onStop(static function () use ($admin): void {
                $admin->stop();
            });
        }
        try {
            $pool->open();
        } catch (PoolStartException $e) {
            fwrite($stderr, "nexus serve: {$e->getMessage()}\n");

            return self::FAILURE;
        }
        fwrite($stdout, sprintf(
            "Nexus is serving %s on %s (%d workers, %s; master pid %d; each worker: %s). Stop it with Ctrl+C, reload it with SIGHUP.\n",
            $options->appFile ?? 'the demo app',
            str_replace('tcp://', 'http://', (string) $pool->address()),
            $pool->workerCount(),
            JitReexec::isActive() ? 'OPcache + tracing JIT' : 'no JIT',
            getmypid(),
            DriverFactory::describe(),
        ));
        self::announceAdmin($admin, $stdout);
        $code = $pool->run();
        fwrite($stdout, "Stopped.\n");

        return $code;
    }

    /**
     * @param resource $stdout
     */
    private static function announceAdmin(?AdminServer $admin, mixed $stdout): void
    {
        if ($admin === null) {
            return;
        }
        $base = str_replace('tcp://', 'http://', $admin->addresses()[0] ?? '');
        fwrite($stdout, "Admin listener on {$base}: {$base}/dashboard, {$base}/metrics, {$base}/readyz (--admin=off disables it).\n");
    }

    /**
     * The readiness checks both modes share: the PostgreSQL store answers, when it is the store.
     */
    private static function checks(Loop $loop, StoreLocation $store): HealthChecks
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

    /**
     * "loop: epoll, up to 19,968 connections (descriptor limit 20,000)", or why stream_select.
     */
    private static function loopDescription(Loop $loop, int $maxConnections): string
    {
        $driver = $loop->driver();
        $line = \sprintf('loop: %s, up to %s connections', $driver->name(), number_format($maxConnections));
        $reason = DriverFactory::fallbackReason();
        if ($driver->name() === 'epoll') {
            return $line . \sprintf(' (descriptor limit %s)', number_format($driver->capacity()));
        }

        return $line . ($reason === null ? '' : " ({$reason})");
    }

    public function usage(): string
    {
        return <<<'TXT'
            Usage: nexus serve [APP_FILE] [--host=127.0.0.1] [--port=8080] [--workers=N] [--no-jit]
                               [--max-requests=N] [--max-memory=MB] [--handler-timeout=S]
                               [--allowed-hosts=HOST,HOST] [--data-dir=DIR] [--store=URL]
                               [--admin=HOST:PORT|off]

              APP_FILE        a PHP file returning
                              fn(Nexus\Http\Application $app, Nexus\Actor\ActorSystem $system, Nexus\Worker\Workers $workers,
                                 Nexus\Persistence\StoreLocation $store): void   ($store->open($system) for durable actors)
                              (default: the demo app: GET /, GET /hello/{name}, POST /echo, durable counters)
              --host          address to listen on (default 127.0.0.1)
              --port          port to listen on (default 8080; 0 picks a free one)
              --workers       worker processes (default: one per core); with 2 or more a master
                              process supervises them and restarts any that die
              --max-requests  recycle a worker after this many requests (default 0: never)
              --max-memory    recycle a worker above this many MiB of memory (default 0: never)
              --handler-timeout
                              seconds a request's handler may take, from when the request was
                              read (default 30); past it its waits are cancelled and the client
                              gets 503
              --allowed-hosts
                              the only host names requests may name in their Host header (the
                              port aside), separated by commas; any other gets 421 Misdirected
                              Request (default: every host)
              --admin         the admin listener: /metrics (Prometheus), /livez, /readyz,
                              /dashboard (default 127.0.0.1:9090, or a free port when --port=0;
                              off disables it); never the application's port. With workers it
                              runs in the master and shows every worker
              --no-jit        do not restart PHP with OPcache and the tracing JIT
              --data-dir      where durable actors are kept: DIR/nexus.sqlite (default ./var,
                              created if missing)
              --store         keep them in PostgreSQL instead: postgres://USER:PASS@HOST:PORT/DB
                              (the tables are created on first start)

            SIGINT or SIGTERM stops the server gracefully; SIGHUP reloads the workers one at a time
            without failing a request.

            TXT;
    }

    /**
     * @return list<string>
     */
    private static function commandLine(): array
    {
        $argv = $_SERVER['argv'] ?? [];
        $line = [];
        foreach (\is_array($argv) ? $argv : [] as $arg) {
            $line[] = \is_string($arg) ? $arg : '';
        }

        return $line;
    }
}
