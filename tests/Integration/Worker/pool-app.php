<?php

declare(strict_types=1);

use Nexus\Actor\ActorSystem;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Worker\Workers;

// The demo app, plus GET /pid: which worker process answered.
return static function (Application $app, ActorSystem $system, Workers $workers): void {
    DemoApp::configure($app, $system, $workers);
    $app->get('/pid', static fn(): array => ['pid' => getmypid(), 'worker' => $workers->id]);
};
