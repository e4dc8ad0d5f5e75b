<?php

declare(strict_types=1);

/*
 * An application whose GET /wait waits for an actor that never answers (for 60 s), as a handler
 * stuck on a slow database does; GET / answers at once.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;

return static function (Application $app, ActorSystem $system): void {
    $silent = $system->spawn(Behavior::receive(static function (): void {}), 'silent');
    $app->get('/', static fn(): string => 'ok');
    $app->get('/wait', static fn(): string => json_encode($silent->ask('anything', 60.0)->await(), \JSON_THROW_ON_ERROR));
};
