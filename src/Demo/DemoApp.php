<?php

declare(strict_types=1);

namespace Nexus\Demo;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Demo\Chat\ChatMember;
use Nexus\Demo\Chat\EchoHandler;
use Nexus\Demo\Counter\Incremented;
use Nexus\Http\Application;
use Nexus\Http\Handler\HttpException;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Persistence\CommandFailed;
use Nexus\Persistence\Effect;
use Nexus\Persistence\Persistence;
use Nexus\Worker\EntityKind;
use Nexus\Worker\EntitySettings;
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
 * Each counter is an event-sourced entity named after it (/user/counter/{name}), created on first
 * use on the worker that owns its name, so counts stay exact whichever worker a request lands
 * on; an idle one is passivated and recovers from its events on its next request. Its increments are stored ($persistence: `nexus serve` keeps them in var/nexus.sqlite, or
 * PostgreSQL with --store); an increment is answered once it is stored, and one the store could
 * not take gets 503. Without $persistence the counters live in this process's memory.
 */
final class DemoApp
{
    private static ?string $chatPage = null;
    /** The effect of every increment (see counter()). */
    private static ?Effect $increment = null;

    /**
     * @param EntitySettings $counterSettings how the counters passivate (EntitySettings: idle after 120 s, 100,000 per worker)
     *
     * @return EntityKind the counters
     */
    public static function configure(Application $app, ActorSystem $system, ?Workers $workers = null, ?Persistence $persistence = null, EntitySettings $counterSettings = new EntitySettings()): EntityKind
    {
        $workers ??= Workers::single($system);
        $persistence ??= Persistence::inMemory($system);
        if ($persistence->types->nameOf(Incremented::class) === null) {
            $persistence->types->register(Incremented::class, 'demo.counter.incremented');
        }
        $workers->registerMessage(CommandFailed::class);
        $counters = $workers->kind('counter', static fn(string $name) => self::counter($persistence, $name), $counterSettings);

        $app->get('/', static fn(): string => 'Hello, world!');
        $app->get('/hello/{name}', static fn(string $name): array => ['message' => "Hello, {$name}!"]);
        $app->post('/echo', static fn(Request $request): Response => new Response(
            200,
            ['Content-Type' => $request->header('content-type') ?? 'application/octet-stream'],
            $request->body(),
        ));
        $app->post(
            '/counter/{name:[A-Za-z0-9_.-]+}/increment',
            static fn(string $name): array => ['name' => $name, 'value' => self::ask($counters->ref($name), 'increment')],
        );
        $app->get(
            '/counter/{name:[A-Za-z0-9_.-]+}',
            static fn(string $name): array => ['name' => $name, 'value' => self::ask($counters->ref($name), 'get')],
        );
        self::webSockets($app, $system, $workers);

        return $counters;
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

    private static function counter(Persistence $persistence, string $name): Behavior
    {
        // Effects are immutable and this one does not depend on the command: built once, not
        // per increment (two Effects, a closure and an event fewer per request).
        $increment = self::$increment ??= Effect::persist(new Incremented())->thenReply(static fn(int $value): int => $value);

        return $persistence->eventSourced(
            "counter|{$name}",
            0,
            static fn(int $value, mixed $command, ActorContext $ctx): Effect => match ($command) {
                'increment' => $increment,
                'get' => Effect::reply($value),
                default => Effect::unhandled(),
            },
            static fn(int $value, object $event): int => $event instanceof Incremented ? $value + 1 : $value,
        )->behavior();
    }

    /**
     * The counter's answer, or 503 when it could not store the increment (or did not answer).
     */
    private static function ask(ActorRef $counter, string $command): int
    {
        try {
            $reply = $counter->ask($command, 5.0)->await();
        } catch (AskTimeoutException | RecipientTerminatedException $e) {
            throw new HttpException(503, 'The counter did not answer; try again.', ['Retry-After' => '1'], previous: $e);
        }
        if ($reply instanceof CommandFailed) {
            // What went wrong is in the server's log; the client learns that it may retry.
            throw new HttpException(503, 'The counter could not store this change; try again shortly.', ['Retry-After' => '1']);
        }

        return \is_int($reply) ? $reply : throw new \UnexpectedValueException('A counter answered ' . get_debug_type($reply) . '.');
    }
}
