<?php

declare(strict_types=1);

/*
 * The demo app (GET /ws/echo, GET /ws/chat/{room}) plus what `make bench-ws` reads from the
 * server: GET /bench/memory, the worker's number, process id and PHP heap in bytes after a
 * collection.
 *
 *   php bin/nexus serve bench/ws/app.php --workers=N
 */

use Nexus\Actor\ActorSystem;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Worker\Workers;

return static function (Application $app, ActorSystem $system, Workers $workers): void {
    DemoApp::configure($app, $system, $workers);
    $app->get('/bench/memory', static function () use ($workers): array {
        gc_collect_cycles();

        return ['worker' => $workers->id, 'pid' => getmypid(), 'bytes' => memory_get_usage()];
    });
};
