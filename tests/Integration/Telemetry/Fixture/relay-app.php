<?php

declare(strict_types=1);

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Worker\Workers;

// Every worker runs /user/echo and /user/upper. GET /relay/{name} asks the echo actor of the
// OTHER worker, which asks its own upper actor: one request, two workers, three actor turns.
return static function (Application $app, ActorSystem $system, Workers $workers): void {
    $upper = $system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): Behavior {
        $ctx->reply(strtoupper(is_string($message) ? $message : ''));

        return Behavior::same();
    }), 'upper');
    $system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx) use ($upper, $workers): Behavior {
        $ctx->reply(['worker' => $workers->id, 'upper' => $upper->ask($message)->await()]);

        return Behavior::same();
    }), 'echo');
    $app->get('/relay/{name}', static function (string $name) use ($workers): array {
        $other = $workers->at(1 - $workers->id, '/user/echo');
        if ($other === null) {
            throw new LogicException('No echo actor on the other worker.');
        }

        return ['served_by' => $workers->id, 'reply' => $other->ask($name)->await()];
    });
};
