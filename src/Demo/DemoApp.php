<?php

declare(strict_types=1);

namespace Nexus\Demo;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Demo\Chat\ChatMember;
use Nexus\Demo\Chat\EchoHandler;
use Nexus\Http\Application;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Worker\Topics;
use Nexus\Worker\Workers;

/**
 * The application `nexus serve` runs when no application file is given:
 *
 *     GET  /                          200 text/plain "Hello, world!"
 *     GET  /hello/{name}              200 {"message":"Hello, {name}!"}
 *     POST /echo                      200 the request body, with its content type
 *     POST /counter/{name}/increment  {"name":"...","value":N}
 *     GET  /counter/{name}            {"name":"...","value":N}
 *     GET  /ws/echo                   WebSocket: every message comes back as it came
 *     GET  /ws/chat/{room}            WebSocket: each text message goes to everybody in the room
 *     GET  /chat?room=lobby           a page that joins a room and shows its messages
 *
 * Each counter is an actor named after it (/user/counter/{name}), created on first use on the
 * worker that owns its name, so counts stay exact whichever worker a request lands on.
 */
final class DemoApp
{
    private static ?string $chatPage = null;

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
        self::webSockets($app, $system, $workers);
    }

    /**
     * The WebSocket routes and the chat page. A room is a topic (Topics "chat"), so a message
     * reaches the browsers of that room on every worker.
     */
    private static function webSockets(Application $app, ActorSystem $system, Workers $workers): void
    {
        $topics = new Topics($system, $workers, 'chat');
        $app->websocket('/ws/echo', new EchoHandler());
        $app->websocket(
            '/ws/chat/{room:[A-Za-z0-9_.-]{1,64}}',
            static fn(string $room): ChatMember => new ChatMember($topics, $room),
            new WebSocketOptions(maxFramePayload: 65_536, maxMessageSize: 65_536),
        );
        $app->get('/chat', static fn(): Response => Response::html(self::$chatPage ??= (string) file_get_contents(__DIR__ . '/Resources/chat.html')));
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
