<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Actor\ActorSystem;
use Nexus\Admin\AdminServer;
use Nexus\Admin\CheckResult;
use Nexus\Admin\PoolView;
use Nexus\Admin\ServedObservability;
use Nexus\Cluster\ClusterNode;
use Nexus\Cluster\ClusterOptions;
use Nexus\Cluster\Exception\ClusterConfigurationException;
use Nexus\Cluster\Exception\ClusterException;
use Nexus\Cluster\Exception\JoinInterruptedException;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Connection;
use Nexus\Io\Exception\ListenException;
use Nexus\Log\StderrLogger;
use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\StoreLocation;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Loop;
use Nexus\Telemetry\TelemetryConfig;
use Nexus\Telemetry\TelemetryConfigurationException;
use Nexus\Worker\Exception\LinkTlsException;
use Nexus\Worker\Exception\PoolStartException;
use Nexus\Worker\HttpWorker;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\Transport\LinkTls;
use Nexus\Worker\WorkerContext;
use Nexus\Worker\WorkerPool;
use Nexus\Worker\Workers;
use Psr\Log\LogLevel;

/**
 * `nexus serve [APP_FILE] --host=127.0.0.1 --port=8080 --workers=N [--no-jit] [--handler-timeout=S]
 * [--allowed-hosts=a.example,b.example] [--admin=127.0.0.1:9090|off] [--cluster=etcd://HOST:PORT --node=NAME ...]`
 *
 * Serves an application over HTTP/1.1 until SIGINT or SIGTERM, then stops gracefully: no new
 * connections, requests in flight finish (10 s at most), then the actor system shuts down.
 * With more than one worker, or in a cluster, a master process supervises the workers
 * (WorkerPool, with a ClusterNode for a node of a cluster); with one, the single process serves by
 * itself through the same bootstrap (HttpWorker).
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
        try {
            $tracing = TelemetryConfig::fromEnvironment(); // checked here, before any worker starts
        } catch (TelemetryConfigurationException $e) {
            fwrite($stderr, "nexus serve: {$e->getMessage()}\n");

            return self::FAILURE;
        }
        if ($tracing !== null) {
            fwrite($stdout, "Traces go to {$tracing->endpoint} ({$tracing->protocol->value}, service {$tracing->serviceName}).\n");
        }
        fwrite($stdout, "Durable actors are kept in {$store->describe()}.\n");
        $poolOptions = new PoolOptions(
            workers: $options->workers,
            host: $options->host,
            port: $options->port,
            stopTimeout: self::STOP_DEADLINE,
            maxRequests: $options->maxRequests,
            maxMemory: $options->maxMemory,
        );
        $cluster = $options->cluster === null ? null : $this->clusterNode($options, $store, $stderr);
        if ($cluster !== null || $poolOptions->workerCount() > 1) {
            return $this->runPool($options, $poolOptions, $serverOptions, $configure, $store, $stdout, $stderr, $cluster);
        }

        // One process serves by itself: the same bootstrap as a pool's worker, without a master.
        $address = str_contains($options->host, ':') && !str_starts_with($options->host, '[') ? "[{$options->host}]" : $options->host;
        $errno = 0;
        $errstr = '';
        $socket = @stream_socket_server(
            "tcp://{$address}:{$options->port}",
            $errno,
            $errstr,
            \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN,
            stream_context_create(['socket' => ['backlog' => 511, 'tcp_nodelay' => true]]),
        );
        if ($socket === false) {
            fwrite($stderr, "nexus serve: Could not listen on tcp://{$address}:{$options->port}: {$errstr}; is the port in use by another program?\n");

            return self::FAILURE;
        }
        $admin = $options->admin === null ? null : new StandaloneAdmin($options->admin, $store, static function (AdminServer $server) use ($stdout): void {
            self::announceAdmin($server, $stdout);
        });
        $worker = new HttpWorker($configure, $serverOptions, new StderrLogger(), static function (int $signal) use ($stdout, $admin): void {
            fwrite($stdout, sprintf("Signal %d: stopping (requests in flight get %.0f s to finish).\n", $signal, self::STOP_DEADLINE));
            $admin?->stop();
        }, $admin);
        fwrite($stdout, sprintf(
            "Nexus is serving %s on %s (1 worker, %s; %s). Stop it with Ctrl+C.\n",
            $options->appFile ?? 'the demo app',
            str_replace('tcp://', 'http://', (string) Connection::name($socket, false)),
            JitReexec::isActive() ? 'OPcache + tracing JIT' : 'no JIT',
            'loop: ' . DriverFactory::describe(),
        ));
        try {
            // The admin listener opens once the server exists (StandaloneAdmin::serving()).
            $code = $worker->run(WorkerContext::standalone($poolOptions, $socket));
        } catch (ListenException $e) {
            fwrite($stderr, "nexus serve: {$e->getMessage()}\n");

            return self::FAILURE;
        }
        fwrite($stdout, "Stopped.\n");

        return $code;
    }

    /**
     * @param \Closure(Application, ActorSystem, Workers): void $configure
     * @param resource $stdout
     * @param resource $stderr
     */
    private function runPool(ServeOptions $options, PoolOptions $poolOptions, ServerOptions $serverOptions, \Closure $configure, StoreLocation $store, mixed $stdout, mixed $stderr, ?ClusterNode $cluster = null): int
    {
        // The master logs the pool's life (workers started, replaced, recycled) at info level.
        $observer = $options->admin === null ? null : new ServedObservability();
        $pool = new WorkerPool(new HttpWorker($configure, $serverOptions, new StderrLogger(), observer: $observer), $poolOptions, new StderrLogger(LogLevel::INFO), $cluster);
        $admin = null;
        if ($options->admin !== null) {
            // The admin listener lives in the master: it asks the workers for their figures over
            // their control channels (PoolView), so that it answers while any worker is stuck.
            $view = new PoolView($pool, cluster: $cluster);
            $checks = StandaloneAdmin::checks($pool->loop(), $store)->add('workers', static function () use ($view): CheckResult {
                [$ok, $detail] = $view->workersUp();

                return $ok ? CheckResult::ok($detail) : CheckResult::fail($detail);
            });
            if ($cluster !== null) {
                $checks->add('cluster', static function () use ($cluster): CheckResult {
                    [$ok, $detail] = $cluster->readiness();

                    return $ok ? CheckResult::ok($detail) : CheckResult::fail($detail);
                });
            }
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
            if ($cluster !== null) {
                // A node may wait for etcd in open(): its /readyz says why meanwhile.
                self::announceAdmin($admin, $stdout);
            }
        }
        try {
            $pool->open();
        } catch (JoinInterruptedException $e) {
            fwrite($stdout, "{$e->getMessage()}\n");
            $admin?->stop();

            return 0;
        } catch (PoolStartException | ClusterException | PersistenceException $e) {
            fwrite($stderr, "nexus serve: {$e->getMessage()}\n");

            return self::FAILURE;
        }
        fwrite($stdout, sprintf(
            "Nexus is serving %s on %s (%d workers, %s; master pid %d%s; each worker: %s). Stop it with Ctrl+C, reload it with SIGHUP.\n",
            $options->appFile ?? 'the demo app',
            str_replace('tcp://', 'http://', (string) $pool->address()),
            $pool->workerCount(),
            JitReexec::isActive() ? 'OPcache + tracing JIT' : 'no JIT',
            getmypid(),
            $cluster === null ? '' : "; node {$cluster->options->node} of the cluster at {$options->cluster}, incarnation {$cluster->node()}",
            DriverFactory::describe(),
        ));
        if ($cluster === null) {
            self::announceAdmin($admin, $stdout);
        }
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
     * @param resource $stderr
     */
    private function clusterNode(ServeOptions $options, StoreLocation $store, mixed $stderr): ClusterNode
    {
        \assert($options->cluster !== null && $options->node !== null);
        try {
            [$etcd, $prefix] = ClusterOptions::parseUrl($options->cluster);
            $secret = null;
            if ($options->clusterSecretFile !== null) {
                $secret = @file_get_contents($options->clusterSecretFile);
                if (!\is_string($secret)) {
                    throw new UsageException("--cluster-secret-file: cannot read '{$options->clusterSecretFile}'.");
                }
                $secret = trim($secret);
            }
            [$host, $port] = self::hostAndPort($options->advertise ?? '127.0.0.1:0');
            [$listenHost, $listenPort] = $options->listenNodes === null ? [null, null] : self::hostAndPort($options->listenNodes);
            $tls = null;
            if ($options->clusterTlsCert !== null && $options->clusterTlsKey !== null && $options->clusterTlsCa !== null) {
                $tls = new LinkTls($options->clusterTlsCert, $options->clusterTlsKey, $options->clusterTlsCa, $options->clusterTlsPeerName);
            }
            $clusterOptions = new ClusterOptions($etcd, $options->node, $host, $port, $secret, $prefix, $options->leaseTtl, listenHost: $listenHost, listenPort: $listenPort, tls: $tls, joinWait: (float) $options->clusterWait);
        } catch (ClusterConfigurationException|LinkTlsException $e) {
            throw new UsageException($e->getMessage(), 0, $e);
        }
        if ($secret === null) {
            fwrite($stderr, "nexus serve: no --cluster-secret-file: the nodes prove the secret the cluster keeps in etcd, so anyone who can read etcd can join.\n");
        }

        return new ClusterNode(new Loop(), $clusterOptions, $store, new StderrLogger(LogLevel::INFO));
    }

    /**
     * @return array{string, int}
     */
    private static function hostAndPort(string $address): array
    {
        $colon = (int) strrpos($address, ':');

        return [trim(substr($address, 0, $colon), '[]'), (int) substr($address, $colon + 1)];
    }

    public function usage(): string
    {
        return <<<'TXT'
            Usage: nexus serve [APP_FILE] [--host=127.0.0.1] [--port=8080] [--workers=N] [--no-jit]
                               [--max-requests=N] [--max-memory=MB] [--handler-timeout=S]
                               [--allowed-hosts=HOST,HOST] [--data-dir=DIR] [--store=URL]
                               [--cluster=etcd://HOST:PORT --node=NAME [--advertise=IP:PORT]
                                [--listen-nodes=IP:PORT] [--cluster-secret-file=FILE] [--lease-ttl=S]
                                [--cluster-wait=S]
                                [--cluster-tls-cert=FILE --cluster-tls-key=FILE --cluster-tls-ca=FILE
                                 [--cluster-tls-peer-name=NAME]]]
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
              --cluster       join the cluster whose membership etcd keeps (etcd://HOST:PORT, optionally
                              /PREFIX): named actors and entities are placed over the workers of every
                              node; all nodes must share the store (PostgreSQL, or --data-dir on one machine)
              --node          this node's name in the cluster
              --advertise     IP:PORT the other nodes reach this one at: worker w listens on PORT + w
                              (default 127.0.0.1:0, free ports)
              --listen-nodes  IP:PORT the workers listen for other nodes on, when not the advertised
                              address (behind a NAT or a proxy): worker w on PORT + w
              --cluster-secret-file
                              a file holding the secret (16 bytes or more) every node proves on its links
                              (default: one kept in etcd)
              --lease-ttl     seconds a node stays a member without renewing its lease (default 10): a
                              killed node's entities serve again elsewhere within about this plus 2 s
              --cluster-wait  seconds a starting node waits for etcd to answer before it gives up
                              (default 0: it keeps trying until etcd answers or it is stopped; it
                              serves nothing and /readyz says not ready meanwhile)
              --cluster-tls-cert, --cluster-tls-key, --cluster-tls-ca
                              mutual TLS on the links between nodes (all three or none; PEM files): this
                              node's certificate and key (extendedKeyUsage serverAuth,clientAuth), and
                              the CA that signed every node's certificate. Each end of a link checks the
                              other's certificate; every node of the cluster needs TLS, or none (a TLS
                              node refuses a plaintext one)
              --cluster-tls-peer-name
                              the name (DNS or IP in subjectAltName) every node's certificate carries
                              (default: the IP address of the node linked to)

            SIGINT or SIGTERM stops the server gracefully (a node of a cluster first hands its entities
            off, then leaves); SIGHUP reloads the workers one at a time without failing a request.

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
