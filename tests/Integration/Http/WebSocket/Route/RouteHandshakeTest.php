<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket\Route;

use Nexus\Http\Handler\HttpException;
use Nexus\Http\Handler\Query;
use Nexus\Http\Middleware;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Tests\Support\WebSocket\TestClient;

/**
 * A WebSocket route's handshake over real sockets: the route's middleware and argument resolvers
 * run before the 101 (so authentication happens before the upgrade), the Origin allow-list, the
 * subprotocol, and the answers to a plain GET (426), a bad handshake (400) and a wrong version
 * (426 with Sec-WebSocket-Version: 13). Also how the HTTP server hands the socket over: frames
 * right behind the request head are delivered, and requests pipelined after an upgrade request
 * are never served as HTTP.
 */
final class RouteHandshakeTest extends RouteTestCase
{
    public function testTheRouteEchoesTextAsTextAndBinaryAsBinary(): void
    {
        $this->app->websocket('/ws/echo', new RecordingHandler());
        $this->app->get('/', static fn(): string => 'plain HTTP still works');
        $this->serve();

        $client = $this->open('/ws/echo');
        self::assertSame('websocket', $client->header('upgrade'));
        self::assertSame('Upgrade', $client->header('connection'));
        $client->sendText('hello');
        $client->sendBinary("\x00\x01\xFF");
        $text = $client->nextDataOrClose();
        $binary = $client->nextDataOrClose();
        self::assertSame([0x1, 'hello'], [$text?->opcode, $text?->payload]);
        self::assertSame([0x2, "\x00\x01\xFF"], [$binary?->opcode, $binary?->payload]);

        $client->sendClose(1000, 'done');
        $this->assertClosedWith($client, 1000);
        self::assertStringContainsString('plain HTTP still works', $this->exchangeRaw("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    }

    public function testAPlainGetGets426WithUpgradeWebsocket(): void
    {
        $this->app->websocket('/ws', new RecordingHandler());
        $this->serve();

        $client = $this->connect('/ws', ['Upgrade' => null, 'Connection' => null]);
        self::assertSame(426, $client->status);
        self::assertSame('websocket', $client->header('upgrade'));
        self::assertNull($client->header('sec-websocket-version'), 'a plain GET is not told about versions');
        self::assertStringContainsString('WebSocket endpoint', $client->body);
    }

    public function testABadHandshakeGets400AndAWrongVersion426WithVersion13(): void
    {
        $handler = new RecordingHandler();
        $this->app->websocket('/ws', $handler);
        $this->serve();

        self::assertSame(400, $this->connect('/ws', ['Sec-WebSocket-Key' => 'not-base64-of-16-bytes'])->status);
        self::assertSame(400, $this->connect('/ws', ['Sec-WebSocket-Key' => null])->status);
        self::assertSame(400, $this->connect('/ws', ['Connection' => 'keep-alive'])->status);
        $wrongVersion = $this->connect('/ws', ['Sec-WebSocket-Version' => '8']);
        self::assertSame(426, $wrongVersion->status);
        self::assertSame('13', $wrongVersion->header('sec-websocket-version'));
        self::assertSame('websocket', $wrongVersion->header('upgrade'));
        self::assertSame(405, $this->exchangeStatus("POST /ws HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"), 'a WebSocket route is GET only');
        self::assertSame(404, $this->connect('/elsewhere')->status);
        self::assertSame([], $handler->events, 'no refused handshake reached the handler');
    }

    public function testOnlyAllowedOriginsMayConnect(): void
    {
        $this->app->websocket('/ws', new RecordingHandler(), new WebSocketOptions(allowedOrigins: ['https://app.example']));
        $this->serve();

        $refused = $this->connect('/ws', ['Origin' => 'https://evil.example']);
        self::assertSame(403, $refused->status);
        self::assertStringContainsString('https://evil.example', $refused->body);
        self::assertSame(101, $this->connect('/ws', ['Origin' => 'HTTPS://APP.example'])->status, 'origins compare without regard to case');
        self::assertSame(101, $this->connect('/ws')->status, 'no Origin: not a browser');
    }

    public function testTheServersPreferredSubprotocolIsChosen(): void
    {
        $handler = new RecordingHandler(onOpen: static function (WebSocket $socket): void {
            $socket->send('protocol ' . ($socket->subprotocol() ?? 'none'));
        });
        $this->app->websocket('/ws', $handler, new WebSocketOptions(subprotocols: ['chat.v2', 'chat.v1']));
        $this->serve();

        $client = $this->open('/ws', ['Sec-WebSocket-Protocol' => 'chat.v1, chat.v2']);
        self::assertSame('chat.v2', $client->header('sec-websocket-protocol'));
        self::assertSame('protocol chat.v2', $client->nextDataOrClose()?->payload);

        $none = $this->open('/ws', ['Sec-WebSocket-Protocol' => 'other']);
        self::assertNull($none->header('sec-websocket-protocol'), 'no shared subprotocol: none is named');
        self::assertSame('protocol none', $none->nextDataOrClose()?->payload);
    }

    public function testTheRoutesMiddlewareAuthenticatesBeforeTheUpgrade(): void
    {
        $handler = new RecordingHandler(onOpen: static function (WebSocket $socket): void {
            $socket->send('welcome');
        });
        $auth = new class implements Middleware {
            public int $calls = 0;

            public function process(Request $request, RequestHandler $next): Response
            {
                ++$this->calls;
                if ($request->header('authorization') !== 'Bearer secret') {
                    return Response::text("Unauthorized\n", 401, ['WWW-Authenticate' => 'Bearer']);
                }

                return $next->handle($request)->withHeader('Set-Cookie', 'seen=1');
            }
        };
        $this->app->websocket('/ws', $handler)->middleware($auth);
        $this->serve();

        $refused = $this->connect('/ws');
        self::assertSame(401, $refused->status);
        self::assertSame('Bearer', $refused->header('www-authenticate'));
        $refused->awaitEof();
        self::assertSame(1, $auth->calls);

        $client = $this->open('/ws', ['Authorization' => 'Bearer secret']);
        self::assertSame('seen=1', $client->header('set-cookie'), 'middleware added a field to the 101');
        self::assertSame('welcome', $client->nextDataOrClose()?->payload);
        self::assertCount(1, $handler->sockets, 'only the authenticated client reached the handler');
    }

    public function testTheFactorysArgumentsAreResolvedDuringTheHandshake(): void
    {
        $this->app->websocket('/ws/room/{id:\d+}', static function (int $id, #[Query] string $name, Request $request): RecordingHandler {
            if ($name === 'mallory') {
                throw new HttpException(403, 'mallory may not join');
            }
            $greeting = "room {$id} for {$name} via {$request->path()}";

            return new RecordingHandler(onOpen: static function (WebSocket $socket) use ($greeting): void {
                $socket->send($greeting);
            });
        });
        $this->serve();

        $client = $this->open('/ws/room/7?name=ada');
        self::assertSame('room 7 for ada via /ws/room/7', $client->nextDataOrClose()?->payload, 'int and #[Query] and Request resolved');
        self::assertSame(400, $this->connect('/ws/room/7')->status, 'a required query parameter is missing');
        self::assertSame(404, $this->connect('/ws/room/seven?name=ada')->status);
        $forbidden = $this->connect('/ws/room/7?name=mallory');
        self::assertSame(403, $forbidden->status, 'an HttpException from the factory refuses the handshake');
        self::assertStringContainsString('mallory may not join', $forbidden->body);
    }

    public function testFramesRightBehindTheRequestHeadAreDelivered(): void
    {
        $handler = new RecordingHandler();
        $this->app->websocket('/ws', $handler);
        $server = $this->serve();

        // The request, two frames and a close in one write: the server reads them in one go.
        $bytes = self::upgradeRequest('/ws') . TestClient::frame(0x1, 'early') . TestClient::frame(0x2, 'bird') . TestClient::frame(0x8, pack('n', 1000));
        $client = TestClient::connectRaw($this->loop, $server->address(), $bytes);
        self::assertSame(101, $client->status);
        $this->assertClosedWith($client, 1000);
        $this->runUntil(static fn(): bool => \count($handler->events) === 4);
        $id = $handler->sockets[0]->id;
        self::assertSame(["open {$id}", "message {$id} text early", "message {$id} binary bird", "close {$id} 1000 "], $handler->events, 'the frames that came with the request reached the handler, in order, before the close');
    }

    public function testRequestsPipelinedAfterAnUpgradeRequestAreNeverServedAsHttp(): void
    {
        $served = 0;
        $this->app->get('/', static function () use (&$served): string {
            ++$served;

            return 'served';
        });
        $this->app->websocket('/ws', new RecordingHandler());
        $this->serve();

        // After a 101 the bytes are WebSocket frames: an HTTP request there is a protocol error.
        $accepted = $this->exchangeRaw(self::upgradeRequest('/ws') . "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        self::assertStringStartsWith('HTTP/1.1 101 ', $accepted);
        self::assertStringNotContainsString('served', $accepted);
        self::assertStringContainsString("\x88", substr($accepted, (int) strpos($accepted, "\r\n\r\n")), 'a close frame');

        // A refused upgrade is the last answer on its connection.
        $refused = $this->exchangeRaw(self::upgradeRequest('/ws', "Sec-WebSocket-Version: 8\r\n") . "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        self::assertSame(1, substr_count($refused, 'HTTP/1.1 '), "one response only:\n{$refused}");
        self::assertStringContainsString("Connection: close\r\n", $refused);

        // An upgrade request to an HTTP route is answered as HTTP, and is the last one too.
        $http = $this->exchangeRaw(self::upgradeRequest('/') . "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        self::assertSame(1, substr_count($http, 'HTTP/1.1 200 '), "one response only:\n{$http}");
        self::assertStringContainsString("Connection: close\r\n", $http);
        self::assertSame(1, $served);
    }

    public function testAHandlerCannotSwitchProtocolsForARequestThatDidNotAskTo(): void
    {
        $this->app->websocket('/ws', new RecordingHandler());
        $this->app->get('/sneaky', fn(Request $request): Response => $this->app->handler()->handle(new Request('GET', '/ws', '/ws', '', '1.1', [
            'host' => ['x'], 'upgrade' => ['websocket'], 'connection' => ['Upgrade'],
            'sec-websocket-key' => [base64_encode(random_bytes(16))], 'sec-websocket-version' => ['13'],
        ])));
        $this->serve();

        self::assertSame(500, $this->exchangeStatus("GET /sneaky HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
        self::assertNotSame([], $this->logger->messages('error'), 'the refused 101 is logged');
    }

    public function testWebSocketConnectionsCountAgainstMaxConnections(): void
    {
        $this->app->websocket('/ws', new RecordingHandler());
        $server = $this->serve(new ServerOptions(maxConnections: 2));

        $first = $this->open('/ws');
        $second = $this->open('/ws');
        self::assertSame(2, $server->connectionCount());
        $third = $this->loop->async(fn(): TestClient => $this->connect('/ws'));
        $this->runFor(0.3);
        self::assertFalse($third->isSettled(), 'a third connection waits while two WebSockets are open');

        $first->sendClose();
        $first->awaitClose();
        $first->close();
        self::assertSame(101, $third->await(10.0)->status, 'the third one is served once one closed');
    }

    public function testStoppingTheServerClosesItsWebSocketsWith1001(): void
    {
        $handler = new RecordingHandler();
        $this->app->websocket('/ws', $handler);
        $server = $this->serve();

        $client = $this->open('/ws');
        $client->sendText('hi');
        self::assertSame('hi', $client->nextDataOrClose()?->payload);
        $stopped = $server->stop(10.0);
        $close = $client->nextDataOrClose();
        self::assertSame([0x8, 1001], [$close?->opcode, $close?->closeCode()]);
        $client->sendClose(1001);
        $client->awaitEof();
        $this->runUntil(static fn(): bool => $stopped->isSettled());
        $this->server = null;
        $socket = $handler->sockets[0];
        $this->runUntil(static fn(): bool => \in_array("close {$socket->id} 1001 the server is shutting down", $handler->events, true));
    }

    private function exchangeStatus(string $request): int
    {
        return (int) substr($this->exchangeRaw($request), 9, 3);
    }
}
