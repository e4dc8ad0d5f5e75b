<?php

declare(strict_types=1);

// A `nexus serve` application for ServeDurableCountersTest: the demo's durable counters, passivated
// after 0.3 s without a request, and GET /entities: which worker answered and how many counters
// are alive on it.

use Nexus\Actor\ActorSystem;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Persistence\StoreLocation;
use Nexus\Worker\EntitySettings;
use Nexus\Worker\Workers;

return static function (Application $app, ActorSystem $system, Workers $workers, StoreLocation $store): void {
    $counters = DemoApp::configure($app, $system, $workers, $store->open($system), new EntitySettings(idleTimeout: 0.3));
    $app->get('/entities', static fn(): array => ['worker' => $workers->id, 'active' => $counters->activeCount()]);
};
