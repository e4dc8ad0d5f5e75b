<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\ListenOptions;
use Nexus\Log\ContextLogger;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Loop;
use Nexus\Telemetry\Telemetry;
use Psr\Log\LoggerInterface;

/**
 * The one bootstrap of HTTP serving: its own loop, actor system and server, on the socket
 * inherited from the master, with the pool's actors reachable through Workers. `nexus serve` runs
 * it in every worker of a pool, and in a process that serves alone (WorkerContext::standalone()).
 *
 * SIGTERM (or SIGINT, or the master going away) stops it gracefully: its named actors and
 * entities pass to the worker replacing it, if any (a reload); it stops accepting, lets requests
 * in flight finish within the pool's stopTimeout, stops its actors within actorStopTimeout, lets
 * the links to the other workers drain (Mesh::DRAIN_TIMEOUT) and exits, all within the time the
 * master grants before it kills (PoolOptions::killTimeout()).
 */
final class HttpWorker implements WorkerMain
{
    /** Seconds an idle keep-alive connection stays open while draining: a request already sent on it is answered, not cut. */
    private const IDLE_GRACE = 1.0;

    /**
     * @param \Closure(Application, ActorSystem, Workers): void $configure   declares routes and actors; runs in every worker
     * @param (\Closure(int): void)|null                        $onStopping told the signal that starts a graceful stop
     */
    public function __construct(
        private readonly \Closure $configure,
        private readonly ServerOptions $serverOptions = new ServerOptions(),
        private readonly ?LoggerInterface $logger = null,
        private readonly ?\Closure $onStopping = null,
        private readonly ?ServerObserver $observer = null,
    ) {}

    public function run(WorkerContext $context): int
    {
        $loop = new Loop();
        $loop->collectCyclesInBatches();
        $logger = $context->isStandalone()
            ? ($this->logger ?? new StderrLogger())
            : new ContextLogger($this->logger ?? new StderrLogger(), ['worker' => $context->id]);
        $system = new ActorSystem($context->isStandalone() ? 'nexus' : "nexus-worker-{$context->id}", $logger, $loop);
        // Tracing when the OTEL_* variables ask for it (off by default): see docs/observability.md.
        $telemetry = Telemetry::fromEnvironment($loop, $logger, resource: ['nexus.worker' => $context->id]);
        $telemetry?->install();
        $workers = $context->join($system);
        $app = new Application($system, logger: $logger);
        $telemetry?->instrument($app);
        $this->observer?->configure($app, $system, $context);
        ($this->configure)($app, $system, $workers);
        $handler = $this->observer === null ? $app->handler() : $this->observer->handler($app->handler());
        $server = new HttpServer($loop, $handler, $this->serverOptions, $logger);
        $this->observer?->serving($server, $system, $context);
        $listener = $context->httpListener($loop, new ListenOptions(
            maxConnections: $this->serverOptions->maxConnections,
            tcpNoDelay: true,
        ), $logger);
        if ($listener !== null) {
            $server->serve($listener);
        }

        $stopping = false;
        $onStopping = $this->onStopping;
        $stop = static function (int $signal = 0) use (&$stopping, $server, $system, $context, $onStopping, $loop): void {
            if ($stopping) {
                return;
            }
            $stopping = true;
            if ($onStopping !== null) {
                $onStopping($signal);
            }
            // The actors stop once the requests in flight are answered and, in a reload, the ones
            // handed off have stopped after their queued messages (or the actors' time is up).
            $handedOff = $context->handOff();
            $server->stop($context->options->stopTimeout, self::IDLE_GRACE)->onSettle(static function () use ($system, $context, $handedOff, $loop): void {
                $deadline = $loop->now() + $context->options->actorStopTimeout;
                if ($handedOff === null || $handedOff->isSettled()) {
                    $system->shutdown($context->options->actorStopTimeout);

                    return;
                }
                $timer = $loop->delay($context->options->actorStopTimeout, static function () use ($system): void {
                    $system->shutdown(0.0);
                });
                $handedOff->onSettle(static function () use ($system, $loop, $timer, $deadline): void {
                    $loop->cancel($timer);
                    $system->shutdown(max(0.0, $deadline - $loop->now()));
                });
            });
        };
        $watchers = [$loop->onSignal(\SIGTERM, $stop), $loop->onSignal(\SIGINT, $stop)];
        $context->watchMaster($loop, $stop);
        $this->watchRecycling($loop, $server, $context);
        $context->ready();
        $system->run();
        $telemetry?->shutdown();
        $context->drain();
        foreach ($watchers as $watcher) {
            $loop->cancel($watcher);
        }

        return 0;
    }

    private function watchRecycling(Loop $loop, HttpServer $server, WorkerContext $context): void
    {
        $maxRequests = $context->options->maxRequests;
        $maxMemory = $context->options->maxMemory;
        if ($maxRequests === 0 && $maxMemory === 0) {
            return;
        }
        $timer = $loop->repeat(0.25, static function () use ($server, $context, $maxRequests, $maxMemory): void {
            if ($maxRequests > 0 && $server->requestsServed() >= $maxRequests) {
                $context->recycle("served {$server->requestsServed()} requests (limit {$maxRequests})");
            } elseif ($maxMemory > 0 && memory_get_usage(true) >= $maxMemory) {
                $context->recycle(\sprintf('uses %d bytes of memory (limit %d)', memory_get_usage(true), $maxMemory));
            }
        });
        $loop->unreference($timer);
    }
}
