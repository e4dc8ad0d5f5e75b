<?php

declare(strict_types=1);

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Worker\Workers;

// The baseline of the HTTP case of `make bench-persistence`: the demo's counter as it was before
// it became durable, a plain actor whose count lives in memory only (the same routes and entity
// placement as the durable demo).
return static function (Application $app, ActorSystem $system, Workers $workers): void {
    $counters = $workers->kind('counter', static fn(string $name): Behavior => Behavior::withState(0, static function (int $value, string $operation, ActorContext $ctx): int {
        if ($operation === 'increment') {
            ++$value;
        }
        $ctx->reply($value);

        return $value;
    }));
    $app->post('/counter/{name:[A-Za-z0-9_.-]+}/increment', static fn(string $name): array => [
        'name' => $name,
        'value' => $counters->ref($name)->ask('increment', 5.0)->await(),
    ]);
};
