<?php

declare(strict_types=1);

/*
 * A pool of one worker (no HTTP port) whose one actor needs 2 s to stop: it waits on a timer in
 * PostStop. The HTTP stop timeout is 0.2 s, the actors' stop timeout 5 s. Logs to stderr.
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\PreStart;
use Nexus\Actor\Signal\Signal;
use Nexus\Http\Application;
use Nexus\Http\Server\ServerOptions;
use Nexus\Log\StderrLogger;
use Nexus\Runtime\Deferred;
use Nexus\Worker\HttpWorker;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\WorkerPool;
use Nexus\Worker\Workers;
use Psr\Log\LogLevel;

require __DIR__ . '/../../../vendor/autoload.php';

$logger = new StderrLogger(LogLevel::INFO);
$worker = new HttpWorker(static function (Application $app, ActorSystem $system, Workers $workers) use ($logger): void {
    $system->spawn(Behavior::receive(static function (): void {})->onSignal(static function (Signal $signal, ActorContext $ctx) use ($logger): void {
        if ($signal instanceof PreStart) {
            $logger->info('the slow actor started');
        } elseif ($signal instanceof PostStop) {
            /** @var Deferred<null> $done */
            $done = new Deferred($ctx->loop());
            $ctx->loop()->delay(2.0, static fn() => $done->resolve(null));
            $done->future()->await();
            $logger->info('the slow actor stopped');
        }
    }), 'slow');
}, new ServerOptions(), $logger);
$pool = new WorkerPool($worker, new PoolOptions(workers: 1, host: null, stopTimeout: 0.2, actorStopTimeout: 5.0, runtimeDir: $argv[1] ?? null), $logger);
exit($pool->run());
