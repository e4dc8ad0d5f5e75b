<?php

declare(strict_types=1);

/*
 * The application of the cluster tests: durable counters as entities, whose events say which
 * slot and process wrote them.
 *
 *     POST /c/{name}/inc   {"value": N} once the increment is stored; 503 {"error": class} when not
 *     GET  /c/{name}       {"value": N}
 *     GET  /whoami         {"slot": S, "pid": P, "clustered": bool}
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\Response;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\Effect;
use Nexus\Persistence\StoreLocation;
use Nexus\Tests\Integration\Cluster\Fixture\Counted;
use Nexus\Worker\Workers;

return static function (Application $app, ActorSystem $system, Workers $workers, StoreLocation $store): void {
    $persistence = $store->open($system);
    $persistence->types->register(Counted::class, 'test.counted');
    $workers->registerMessage(CommandFailed::class);
    $slot = $workers->slot();
    $counters = $workers->kind('counter', static fn(string $name) => $persistence->eventSourced(
        "counter|{$name}",
        0,
        static fn(int $value, mixed $command, ActorContext $ctx): Effect => $command === 'inc'
            ? Effect::persist(new Counted($slot, (int) getmypid()))->thenReply(static fn(int $value): int => $value)
            : Effect::reply($value),
        static fn(int $value, object $event): int => $value + 1,
    )->behavior());
    $answer = static function (string $name, string $command) use ($counters, $workers): Response {
        try {
            $reply = $counters->ref($name)->ask($command, 2.0)->await();
        } catch (\Throwable $e) {
            return Response::json(['error' => $e::class, 'message' => $e->getMessage()], 503);
        }
        if (!\is_int($reply)) {
            return Response::json($reply instanceof CommandFailed
                ? ['error' => $reply->kind, 'message' => $reply->reason, 'slot' => $workers->slot(), 'pid' => getmypid()]
                : ['error' => get_debug_type($reply)], 503);
        }

        return Response::json(['value' => $reply]);
    };
    $app->post('/c/{name:[a-z0-9-]+}/inc', static fn(string $name): Response => $answer($name, 'inc'));
    $app->get('/c/{name:[a-z0-9-]+}', static fn(string $name): Response => $answer($name, 'get'));
    $app->get('/whoami', static fn(): array => ['slot' => $workers->slot(), 'pid' => getmypid(), 'clustered' => $workers->isClustered()]);
};
