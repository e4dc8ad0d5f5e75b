<?php

declare(strict_types=1);

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\Terminated;
use Nexus\Actor\Props;
use Nexus\Http\Application;
use Nexus\Worker\Workers;

/*
 * A known workload for the admin tests: counters started by requests (kind "counter"), each
 * told a number of increments; dead letters on demand; a plain route.
 */
return static function (Application $app, ActorSystem $system, Workers $workers): void {
    // One actor for the whole pool: asked from the other worker, over the link between them.
    $tally = $workers->named('tally', Props::fromBehavior(Behavior::withState(0, static function (int $count, mixed $message, ActorContext $ctx): int {
        $ctx->reply($count + 1);

        return $count + 1;
    }))->withKind('tally'));
    $app->post('/tally', static fn(): array => ['tally' => $tally->ask('add', 5.0)->await()]);
    $counter = Props::fromBehavior(Behavior::withState(0, static fn(int $count, mixed $message): int => $count + 1))->withKind('counter');
    $app->get('/hello', static fn(): string => 'hello');
    $app->post('/counters/{name}', static function (string $name) use ($system, $counter): array {
        $ref = $system->spawn($counter, $name);
        $ref->tell('inc');
        $ref->tell('inc');

        return ['spawned' => $name];
    });
    $app->post('/counters/{name}/stop', static function (string $name) use ($system): array {
        $ref = $system->lookup("/user/{$name}");
        if ($ref !== null) {
            $system->stop($ref);
        }

        return ['stopped' => $name];
    });
    // Stops a fresh actor and, once it has terminated, sends it $count messages: exactly $count
    // dead letters (and two more user actors started and stopped: the target and its watcher).
    $app->post('/dead/{count}', static function (int $count) use ($system): array {
        $target = $system->spawn(Behavior::ignore());
        $system->spawn(Behavior::setup(static function (ActorContext $ctx) use ($system, $target, $count): Behavior {
            $ctx->watch($target);
            $system->stop($target);

            return Behavior::receive(static function (mixed $message) use ($target, $count): ?Behavior {
                if (!$message instanceof Terminated) {
                    return null;
                }
                for ($i = 0; $i < $count; ++$i) {
                    $target->tell("late {$i}");
                }

                return Behavior::stopped();
            });
        }));

        return ['deadLetters' => $count];
    });
};
