<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\RequestHandler;
use Nexus\Http\Server\HttpServer;
use Nexus\HttpClient\ClientMetrics;
use Nexus\Metrics\Aggregation;
use Nexus\Metrics\HttpServerMetrics;
use Nexus\Metrics\Registry;
use Nexus\Persistence\PersistenceStats;
use Nexus\Pool\PoolDirectory;
use Nexus\Worker\ServerObserver;
use Nexus\Worker\WorkerContext;

/**
 * The metrics and the view of one serving process (`nexus serve`, one per worker): a Registry,
 * an ActorSystemView created right after the actor system, HttpServerMetrics around the
 * application's whole handler (HttpServerMetrics::wrap(): no middleware layer), gauges over the server's connections, and, in a worker pool,
 * the answer to the master's stats query: one JSON document with the registry's snapshot and the
 * view (at most Feed::MAX_ACTORS actors and Feed::MAX_DEAD_LETTERS dead letters), which the
 * master's PoolView merges.
 *
 * Adds per process: http_server_open_connections, nexus_websocket_connections (gauges read at
 * scrape time, nothing on the request path beyond the middleware); the PostgreSQL and Redis
 * pools of the process (PoolDirectory: db.client.connections.usage by state, .pending_requests,
 * .max, db.client.operation.duration) and its persistence (PersistenceStats:
 * nexus.persistence.*) and its outgoing HTTP requests (ClientMetrics: http.client.request.duration),
 * all read from what they count themselves when scraped.
 */
final class ServedObservability implements ServerObserver
{
    private ?Registry $registry = null;
    private ?ActorSystemView $view = null;
    private ?HttpServer $server = null;
    private ?HttpServerMetrics $http = null;

    /**
     * The registry of this process, made by configure(): in a pool each worker makes its own
     * after the fork, so that each has its own incarnation.
     */
    public function registry(): Registry
    {
        return $this->registry ??= new Registry();
    }

    public function configure(Application $app, ActorSystem $system, ?WorkerContext $context): void
    {
        $this->registry = new Registry();
        $this->view = new ActorSystemView(
            $system,
            $this->registry,
            fn(): int => $this->server?->requestsServed() ?? 0,
            $context === null ? '0' : (string) $context->id,
        );
        $this->http = new HttpServerMetrics($this->registry);
        self::poolMetrics($this->registry);
        self::persistenceMetrics($this->registry);
        self::httpClientMetrics($this->registry);
    }

    /**
     * The outgoing HTTP requests of this process's HttpClients (ClientMetrics): at most
     * ClientMetrics::MAX_SERIES label combinations.
     */
    public static function httpClientMetrics(Registry $registry): void
    {
        $registry->histogramCallback(
            'http.client.request.duration',
            'Duration of outgoing HTTP requests, until the response (its head when streamed) or the failure.',
            static fn(): array => ClientMetrics::rows(),
            ['http.request.method', 'server.address', 'server.port', 'http.response.status_code', 'error.type'],
            maxSeries: ClientMetrics::MAX_SERIES + 1,
        );
    }

    /**
     * The PgPools and RedisPools of this process by db.system and pool name (PoolDirectory):
     * at most PoolDirectory::MAX_NAMES names, the rest under `_other`.
     */
    public static function poolMetrics(Registry $registry): void
    {
        $labels = ['db.system', 'db.client.connection.pool.name'];
        $registry->gaugeCallback('db.client.connections.usage', 'Connections of the pool by state: used (lent out) or idle (OpenTelemetry db.client.connection.count, under its earlier name: Prometheus reserves _count for histograms).', static function (): array {
            $rows = [];
            foreach (PoolDirectory::all() as $pool) {
                $figures = $pool->figures();
                $rows[] = [[$pool->kind, $pool->name, 'used'], $figures['used']];
                $rows[] = [[$pool->kind, $pool->name, 'idle'], $figures['idle']];
            }

            return $rows;
        }, [...$labels, 'db.client.connection.state'], '{connection}');
        $registry->gaugeCallback('db.client.connection.pending_requests', 'Callers waiting for a connection of the pool.', static fn(): array => self::poolRows('pending'), $labels, '{request}');
        $registry->gaugeCallback('db.client.connection.max', 'Most connections the pool may open.', static fn(): array => self::poolRows('max'), $labels, '{connection}');
        $registry->gaugeCallback('nexus.db.client.connection.open', 'Connections of the pool open now: used, idle, being opened or made clean.', static fn(): array => self::poolRows('open'), $labels, '{connection}');
        $registry->histogramCallback('db.client.operation.duration', 'Duration of the statements (PostgreSQL) and commands or pipelines (Redis) run through the pool, the wait for a connection not included.', static function (): array {
            $rows = [];
            foreach (PoolDirectory::all() as $pool) {
                $rows[] = [[$pool->kind, $pool->name], $pool->durations->counts(), $pool->durations->sum()];
            }

            return $rows;
        }, $labels);
    }

    /**
     * @return list<array{list<string>, int}>
     */
    private static function poolRows(string $figure): array
    {
        $rows = [];
        foreach (PoolDirectory::all() as $pool) {
            $rows[] = [[$pool->kind, $pool->name], $pool->figures()[$figure]];
        }

        return $rows;
    }

    /**
     * What the persistent actors of this process wrote and recovered (PersistenceStats).
     */
    public static function persistenceMetrics(Registry $registry): void
    {
        $stats = PersistenceStats::process();
        $registry->counterCallback('nexus.persistence.events', 'Events persisted (their journal write committed).', static fn(): int => $stats->events, unit: '{event}');
        $registry->counterCallback('nexus.persistence.states', 'Durable states written.', static fn(): int => $stats->states, unit: '{state}');
        $registry->counterCallback('nexus.persistence.write_failures', 'Writes of events or a state that the store refused or could not take.', static fn(): int => $stats->failedWrites, unit: '{write}');
        $registry->counterCallback('nexus.persistence.recoveries', 'Persistent actors that read their state back, by outcome: completed or failed.', static fn(): array => [[['completed'], $stats->recoveries], [['failed'], $stats->failedRecoveries]], ['outcome'], '{recovery}');
        $registry->histogramCallback('nexus.persistence.write.duration', 'Duration of each store transaction of the group commit (persist latency), from sending to its answer.', static fn(): array => [[[], $stats->writeDurations->counts(), $stats->writeDurations->sum()]]);
    }

    public function handler(RequestHandler $handler): RequestHandler
    {
        return $this->http === null ? $handler : $this->http->wrap($handler);
    }

    public function serving(HttpServer $server, ActorSystem $system, ?WorkerContext $context): void
    {
        $this->server = $server;
        $registry = $this->registry();
        $registry->gaugeCallback('http.server.open_connections', 'HTTP connections open now (WebSocket connections included).', static fn(): int => $server->connectionCount(), unit: '{connection}');
        $registry->gaugeCallback('nexus.websocket.connections', 'WebSocket connections open now.', static fn(): int => $server->upgradedCount(), unit: '{connection}');
        if ($context !== null) {
            self::linkMetrics($registry, $context);
            $context->answerStats(fn(string $question): string => $this->payload());
        }
    }

    /**
     * The links between workers, per worker and peer: batches and bytes each way, and batches
     * not acknowledged yet (counted by the links per batch, read here at scrape time).
     */
    private static function linkMetrics(Registry $registry, WorkerContext $context): void
    {
        $rows = static function (string $field) use ($context): array {
            $rows = [];
            foreach ($context->linkStats() as $link) {
                $rows[] = [[(string) $link['peer']], $link[$field]];
            }

            return $rows;
        };
        $registry->counterCallback('nexus.mesh.frames.sent', 'Batches of messages sent to another worker, by peer.', static fn(): array => $rows('framesSent'), ['peer'], '{frame}', aggregation: Aggregation::PerWorker);
        $registry->counterCallback('nexus.mesh.frames.received', 'Batches of messages received from another worker, by peer.', static fn(): array => $rows('framesReceived'), ['peer'], '{frame}', aggregation: Aggregation::PerWorker);
        $registry->counterCallback('nexus.mesh.sent', 'Bytes sent to another worker (frames with their headers), by peer.', static fn(): array => $rows('bytesSent'), ['peer'], 'By', aggregation: Aggregation::PerWorker);
        $registry->counterCallback('nexus.mesh.received', 'Bytes received from another worker, by peer.', static fn(): array => $rows('bytesReceived'), ['peer'], 'By', aggregation: Aggregation::PerWorker);
        $registry->gaugeCallback('nexus.mesh.unacknowledged', 'Batches sent to another worker and not acknowledged yet, by peer.', static fn(): array => $rows('unacknowledged'), ['peer'], '{frame}');
    }

    /**
     * The view of this process; null before configure().
     */
    public function view(): ?ActorSystemView
    {
        return $this->view;
    }

    /**
     * What a worker sends the master: {incarnation, families, view: {workers, actors, deadLetters, pools}}.
     */
    public function payload(): string
    {
        $snapshot = $this->registry()->snapshot();
        $view = $this->view;
        $document = [
            'incarnation' => $snapshot['incarnation'],
            'families' => $snapshot['families'],
            'view' => $view === null ? null : [
                'workers' => $view->workers(),
                'actors' => $view->actors('', Feed::MAX_ACTORS),
                'deadLetters' => $view->deadLetters(Feed::MAX_DEAD_LETTERS),
                'pools' => $view->pools(),
            ],
        ];

        return json_encode($document, \JSON_PRESERVE_ZERO_FRACTION | \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_PARTIAL_OUTPUT_ON_ERROR) ?: '{}';
    }
}
