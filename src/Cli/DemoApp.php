<?php

declare(strict_types=1);

namespace Nexus\Cli;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Http\Handler\Actor;
use Nexus\Http\Request;
use Nexus\Http\Response;

/**
 * The application `nexus serve` runs when no application file is given:
 *
 *     GET  /                          200 text/plain "Hello, world!"
 *     GET  /hello/{name}              200 {"message":"Hello, {name}!"}
 *     POST /echo                      200 the request body, with its content type
 *     POST /counter/{name}/increment  {"name":"...","value":N}
 *     GET  /counter/{name}            {"name":"...","value":N}
 *
 * Each counter is an actor named after it under /user/counters, created on first use.
 */
final class DemoApp
{
    public static function configure(Application $app, ActorSystem $system): void
    {
        $system->spawn(self::counters(), 'counters');

        $app->get('/', static fn(): string => 'Hello, world!');
        $app->get('/hello/{name}', static fn(string $name): array => ['message' => "Hello, {$name}!"]);
        $app->post('/echo', static fn(Request $request): Response => new Response(
            200,
            ['Content-Type' => $request->header('content-type') ?? 'application/octet-stream'],
            $request->body(),
        ));
        $app->post(
            '/counter/{name:[A-Za-z0-9_.-]+}/increment',
            static fn(string $name, #[Actor('counters')] ActorRef $counters): array => [
                'name' => $name,
                'value' => $counters->ask(['increment', $name], 5.0)->await(),
            ],
        );
        $app->get(
            '/counter/{name:[A-Za-z0-9_.-]+}',
            static fn(string $name, #[Actor('counters')] ActorRef $counters): array => [
                'name' => $name,
                'value' => $counters->ask(['get', $name], 5.0)->await(),
            ],
        );
    }

    /**
     * The parent of the counters: starts a counter the first time its name is used and passes the
     * request on to it (the counter answers the original asker).
     */
    private static function counters(): Behavior
    {
        $counter = Behavior::withState(0, static function (int $value, string $operation, ActorContext $ctx): int {
            if ($operation === 'increment') {
                ++$value;
            }
            $ctx->reply($value);

            return $value;
        });

        return Behavior::receive(static function (array $request, ActorContext $ctx) use ($counter): void {
            [$operation, $name] = $request;
            \assert(\is_string($operation) && \is_string($name));
            $ctx->forward($ctx->child($name) ?? $ctx->spawn($counter, $name), $operation);
        });
    }
}
