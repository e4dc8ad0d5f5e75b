<?php

declare(strict_types=1);

/*
 * An application file for `php bin/nexus serve examples/app.php --port=8080`.
 *
 * It returns a closure that receives the Application (routes, middleware), the ActorSystem
 * (actors) of the worker and the worker pool (Workers), declares what it serves, and returns. It
 * runs in every worker process. Handlers run inside fibers: they may await an actor's reply
 * without blocking other requests.
 */

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Http\Handler\Actor;
use Nexus\Http\Handler\Body;
use Nexus\Http\Handler\Query;
use Nexus\Http\Middleware\RequestId;
use Nexus\Worker\Workers;

return static function (Application $app, ActorSystem $system, Workers $workers): void {
    // A guest book kept by one actor, its state the list of entries. named() starts it on one
    // worker and lets every worker reach it (ActorSystem::spawn() would start one per worker).
    $workers->named('guestbook', Behavior::withState([], static function (array $entries, array $command, ActorContext $ctx): array {
        if ($command[0] === 'sign') {
            $entries[] = $command[1];
        }
        $ctx->reply($entries);

        return $entries;
    }));

    $app->middleware(new RequestId());

    $app->get('/', static fn(): string => "Welcome! Try GET /guestbook and POST /guestbook {\"name\": \"Ada\"}\n");
    $app->get(
        '/guestbook',
        static fn(#[Actor('guestbook')] ActorRef $book, #[Query] int $limit = 10): array => [
            'entries' => array_slice((array) $book->ask(['list'])->await(), -$limit),
        ],
    )->name('guestbook');
    $app->post(
        '/guestbook',
        static fn(#[Actor('guestbook')] ActorRef $book, #[Body] array $entry): array => [
            'entries' => $book->ask(['sign', (string) ($entry['name'] ?? 'anonymous')])->await(),
        ],
    );
};
