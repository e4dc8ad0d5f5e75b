<?php

declare(strict_types=1);

use Nexus\Actor\ActorSystem;
use Nexus\Demo\DemoApp;
use Nexus\Http\Application;
use Nexus\Worker\Workers;

// The demo app plus GET /work: about 100 µs of CPU per request (a checksum chain), so that the
// server, not wrk, is what runs out of CPU when the pool's HTTP scaling is measured.
return static function (Application $app, ActorSystem $system, Workers $workers): void {
    DemoApp::configure($app, $system, $workers);
    $app->get('/work', static function (): array {
        $sum = 0;
        for ($i = 0; $i < 1000; ++$i) {
            $sum = crc32($sum . ':' . $i);
        }

        return ['sum' => $sum];
    });
};
