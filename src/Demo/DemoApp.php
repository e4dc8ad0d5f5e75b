<?php

declare(strict_types=1);

namespace Nexus\Demo;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Application;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Worker\Workers;

/**
 * The application `nexus serve` runs when no application file is given:
 *
 *     GET  /                          200 text/plain "Hello, world!"
 *     GET  /hello/{name}              200 {"message":"Hello, {name}!"}
 *     POST /echo                      200 the request body, with its content type
 *     POST /counter/{name}/increment  {"name":"...","value":N}
 *     GET  /counter/{name}            {"name":"...","value":N}
 *
 * Each counter is an actor named after it (/user/counter/{name}), created on first use on the
 * worker that owns its name, so counts stay exact whichever worker a request lands on.
 */
final class DemoApp
{
    public static function configure(Application $app, ActorSystem $system, ?Workers $workers = null): void
    {
        $workers ??= Workers::single($system);
        $counters = $workers->kind('counter', static fn(): Behavior => self::counter());

        $app->get('/', static fn(): string => 'Hello, world!');
        $app->get('/hello/{name}', static fn(string $name): array => ['message' => "Hello, {$name}!"]);
        $app->post('/echo', static fn(Request $request): Response => new Response(
            200,
            ['Content-Type' => $request->header('content-type') ?? 'application/octet-stream'],
            $request->body(),
        ));
        $app->post(
            '/counter/{name:[A-Za-z0-9_.-]+}/increment',
            static fn(string $name): array => [
                'name' => $name,
                'value' => $counters->ref($name)->ask('increment', 5.0)->await(),
            ],
        );
        $app->get(
            '/counter/{name:[A-Za-z0-9_.-]+}',
            static fn(string $name): array => [
                'name' => $name,
                'value' => $counters->ref($name)->ask('get', 5.0)->await(),
            ],
        );
    }

    private static function counter(): Behavior
    {
        return Behavior::withState(0, static function (int $value, string $operation, ActorContext $ctx): int {
            if ($operation === 'increment') {
                ++$value;
            }
            $ctx->reply($value);

            return $value;
        });
    }
}
