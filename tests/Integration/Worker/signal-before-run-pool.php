<?php

declare(strict_types=1);

/*
 * A pool of one worker (no HTTP port) whose master gets SIGTERM between open() and run(), the
 * moment `nexus serve` prints that it is serving. Logs to stderr; exits with run()'s code.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\Server\ServerOptions;
use Nexus\Log\StderrLogger;
use Nexus\Worker\HttpWorker;
use Nexus\Worker\PoolOptions;
use Nexus\Worker\WorkerPool;
use Nexus\Worker\Workers;
use Psr\Log\LogLevel;

require __DIR__ . '/../../../vendor/autoload.php';

$logger = new StderrLogger(LogLevel::INFO);
$worker = new HttpWorker(static function (Application $app, ActorSystem $system, Workers $workers): void {}, new ServerOptions(), $logger);
$pool = new WorkerPool($worker, new PoolOptions(workers: 1, host: null, runtimeDir: $argv[1] ?? null), $logger);
$pool->open();
posix_kill(posix_getpid(), \SIGTERM);
exit($pool->run());
