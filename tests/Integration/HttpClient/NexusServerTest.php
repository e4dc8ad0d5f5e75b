<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ResponseStream;
use Nexus\HttpClient\ClientOptions;
use Nexus\HttpClient\ClientResponse;
use Nexus\HttpClient\Exception\ClientClosedException;
use Nexus\HttpClient\Exception\ConnectException;
use Nexus\HttpClient\Exception\ConnectTimeoutException;
use Nexus\HttpClient\Exception\InvalidRequestException;
use Nexus\HttpClient\Exception\TimeoutKind;
use Nexus\HttpClient\RequestBody;
use Nexus\HttpClient\RequestOptions;
use Nexus\HttpClient\StaticResolver;
use Nexus\Log\MemoryLogger;
use Nexus\Pool\Exception\PoolTimeoutException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\DeferredCancellation;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Future;

/**
 * The client against Nexus's own HTTP server, both on the test's loop over real sockets.
 */
final class NexusServerTest extends HttpClientTestCase
{
    public function testGetPostAndJsonHelpers(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::json([
            'method' => $r->method(),
            'target' => $r->target(),
            'body' => $r->body(),
            'type' => $r->header('Content-Type'),
            'accept' => $r->header('Accept'),
            'agent' => $r->header('User-Agent'),
            'x' => $r->header('X-Custom'),
        ]));

        $get = $this->client->get("{$base}/a?b=1", ['X-Custom' => 'yes'])->await(10.0);
        self::assertSame(200, $get->status());
        self::assertSame('OK', $get->reason());
        self::assertSame('1.1', $get->protocolVersion());
        self::assertSame('application/json', $get->header('content-type'));
        self::assertSame(['method' => 'GET', 'target' => '/a?b=1', 'body' => '', 'type' => null, 'accept' => null, 'agent' => 'Nexus-HttpClient/1.0', 'x' => 'yes'], $get->json());

        $post = $this->client->post("{$base}/p", 'raw bytes', ['Content-Type' => 'text/plain'])->await(10.0)->json();
        self::assertIsArray($post);
        self::assertSame(['POST', 'raw bytes', 'text/plain'], [$post['method'], $post['body'], $post['type']]);

        $json = $this->client->json('PUT', "{$base}/j", ['a' => 1, 'list' => [1.0, 'two']])->await(10.0)->json();
        self::assertIsArray($json);
        self::assertSame('PUT', $json['method']);
        self::assertSame('{"a":1,"list":[1.0,"two"]}', $json['body']);
        self::assertSame('application/json', $json['type']);
        self::assertSame('application/json', $json['accept']);
        self::assertSame(1, $this->client->connectionCount(), 'all three over one kept-alive connection');
    }

    public function testKeepAliveReusesTheConnectionAndHeadHasNoBody(): void
    {
        $peers = [];
        $base = $this->serve(static function (Request $r) use (&$peers): Response {
            $peers[] = $r->header('X-N');

            return Response::text('body of ' . $r->method());
        });
        for ($i = 0; $i < 5; ++$i) {
            self::assertSame('body of GET', $this->client->get("{$base}/", ['X-N' => (string) $i])->await(10.0)->body());
            self::assertSame(1, $this->client->connectionCount());
            self::assertSame(1, $this->client->idleConnectionCount($base));
        }
        $head = $this->client->request('HEAD', "{$base}/")->await(10.0);
        self::assertSame('', $head->body());
        self::assertSame('12', $head->header('Content-Length'));
        self::assertSame('body of GET', $this->client->get("{$base}/")->await(10.0)->body(), 'the HEAD answer left nothing behind');
        self::assertSame(1, $this->client->connectionCount());
    }

    public function testAHandlerAwaitingTheClientLeavesTheWorkerFreeForOtherRequests(): void
    {
        $loop = $this->loop;
        $release = new Deferred($loop);
        $upstream = $this->serve(static function (Request $r) use ($release): Response {
            $release->future()->await();

            return Response::text('upstream answer');
        });
        $client = $this->client;
        $order = [];
        $front = $this->serve(static function (Request $r) use ($client, $upstream, &$order): Response {
            if ($r->path() === '/proxy') {
                $answer = $client->get("{$upstream}/slow")->await()->body();
                $order[] = 'proxy';

                return Response::text("proxied: {$answer}");
            }
            $order[] = 'fast';

            return Response::text('fast');
        });

        $proxied = $this->client->get("{$front}/proxy");
        $fast = $this->client->get("{$front}/fast")->await(10.0);
        self::assertSame('fast', $fast->body());
        self::assertFalse($proxied->isSettled(), 'the proxy handler still waits for its upstream');
        self::assertSame(['fast'], $order);

        $release->resolve(null);
        self::assertSame('proxied: upstream answer', $proxied->await(10.0)->body());
        self::assertSame(['fast', 'proxy'], $order);
    }

    public function testAnActorAwaitsAResponseWhileOtherActorsRun(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::text('for ' . $r->path()));
        $system = new ActorSystem('client-test', new MemoryLogger(), $this->loop);
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            $this->loopErrors[] = $e;
        });
        $client = $this->client;
        $fetcher = $system->spawn(Behavior::receive(static function (mixed $path, ActorContext $ctx) use ($client, $base): null {
            \assert(\is_string($path));
            $ctx->reply($client->get($base . $path)->await()->body());

            return null;
        }));
        $echo = $system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): null {
            $ctx->reply($message);

            return null;
        }));
        $fetched = $fetcher->ask('/actor', 5.0);
        $echoed = $echo->ask('echo', 5.0);
        self::assertSame('echo', $echoed->await(10.0));
        self::assertSame('for /actor', $fetched->await(10.0));
        $system->shutdown()->await(10.0);
    }

    public function testAnIdleConnectionIsClosedAfterTheKeepAliveTimeout(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::text('ok'));
        $client = $this->client = $this->client(new ClientOptions(keepAliveTimeout: 0.2));
        self::assertSame('ok', $client->get("{$base}/")->await(10.0)->body());
        self::assertSame(1, $client->idleConnectionCount($base));
        $this->runUntil(static fn(): bool => $client->connectionCount() === 0);
        self::assertSame('ok', $client->get("{$base}/")->await(10.0)->body(), 'a new connection');
    }

    public function testAtMostMaxConnectionsPerOriginAndWaitersTimeOut(): void
    {
        $gate = new Deferred($this->loop);
        $arrived = 0;
        $base = $this->serve(static function (Request $r) use ($gate, &$arrived): Response {
            ++$arrived;
            $gate->future()->await();

            return Response::text('done');
        });
        $client = $this->client = $this->client(new ClientOptions(maxConnectionsPerOrigin: 2, acquireTimeout: 0.3));
        $first = $client->get("{$base}/1");
        $second = $client->get("{$base}/2");
        $third = $client->get("{$base}/3");
        $this->runUntil(static function () use (&$arrived): bool {
            return $arrived === 2;
        });
        self::assertSame(2, $client->connectionCount());

        $error = $this->failureOf($third);
        self::assertInstanceOf(PoolTimeoutException::class, $error);
        self::assertStringContainsString('HTTP client pool', $error->getMessage());
        self::assertSame(2, $arrived, 'the third request never reached the server');

        $gate->resolve(null);
        self::assertSame('done', $first->await(10.0)->body());
        self::assertSame('done', $second->await(10.0)->body());
        self::assertSame(2, $client->idleConnectionCount($base));
    }

    public function testAWaitingRequestGetsTheConnectionTheFirstGivesBack(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::text($r->path()));
        $client = $this->client = $this->client(new ClientOptions(maxConnectionsPerOrigin: 1));
        $futures = [];
        for ($i = 0; $i < 10; ++$i) {
            $futures[] = $client->get("{$base}/{$i}");
        }
        $bodies = array_map(static fn(ClientResponse $r): string => $r->body(), Future::all($futures)->await(10.0));
        self::assertSame(array_map(static fn(int $i): string => "/{$i}", range(0, 9)), $bodies);
        self::assertSame(1, $client->connectionCount());
    }

    public function testTheTotalCapSpansOrigins(): void
    {
        $gate = new Deferred($this->loop);
        $arrived = 0;
        $handler = static function (Request $r) use ($gate, &$arrived): Response {
            ++$arrived;
            $gate->future()->await();

            return Response::text('ok');
        };
        $a = $this->serve($handler);
        $b = $this->serve($handler);
        $client = $this->client = $this->client(new ClientOptions(maxConnectionsPerOrigin: 4, maxConnections: 2, acquireTimeout: 0.3));
        $client->get("{$a}/")->ignore();
        $client->get("{$a}/")->ignore();
        $third = $client->get("{$b}/");
        $this->runUntil(static function () use (&$arrived): bool {
            return $arrived === 2;
        });
        self::assertInstanceOf(PoolTimeoutException::class, $this->failureOf($third));
        self::assertSame(2, $client->connectionCount());
        $gate->resolve(null);
        $this->runUntil(static fn(): bool => $client->inFlight() === 0);
    }

    public function testCancellingAnInFlightRequestFailsItAndClosesItsConnection(): void
    {
        $arrived = false;
        $never = new Deferred($this->loop);
        $base = $this->serve(static function (Request $r) use (&$arrived, $never): Response {
            $arrived = true;
            $never->future()->await(5.0);

            return Response::text('too late');
        });
        $cancel = new DeferredCancellation($this->loop);
        $future = $this->client->get("{$base}/", [], null, $cancel->cancellation());
        $this->runUntil(static function () use (&$arrived): bool {
            return $arrived;
        });
        $cancel->cancel(new \RuntimeException('the user gave up'));

        $error = $this->failureOf($future);
        self::assertInstanceOf(CancelledException::class, $error);
        self::assertStringContainsString('the user gave up', $error->getMessage());
        self::assertSame(0, $this->client->connectionCount(), 'a cancelled request never returns its connection to the pool');
        self::assertSame(0, $this->client->inFlight());
        $never->resolve(null);
    }

    public function testARequestWhoseCancellationWasAlreadyRequestedIsNeverSent(): void
    {
        $hits = 0;
        $base = $this->serve(static function () use (&$hits): Response {
            ++$hits;

            return Response::text('');
        });
        $cancel = new DeferredCancellation($this->loop);
        $cancel->cancel();
        self::assertInstanceOf(CancelledException::class, $this->failureOf($this->client->get("{$base}/", [], null, $cancel->cancellation())));
        self::assertSame(0, $this->client->inFlight());
        self::assertSame('', $this->client->get("{$base}/")->await(10.0)->body());
        self::assertSame(1, $hits);
    }

    public function testAStreamedRequestBodyOfUnknownLengthIsSentChunked(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::text(\sprintf('%s %d %s', $r->header('Transfer-Encoding') ?? '-', \strlen($r->body()), md5($r->body()))));
        $pieces = [];
        for ($i = 0; $i < 64; ++$i) {
            $pieces[] = str_repeat(\chr(65 + $i % 26), 16_384);
        }
        $loop = $this->loop;
        $body = RequestBody::fromIterable(static function () use ($pieces, $loop): \Generator {
            foreach ($pieces as $i => $piece) {
                if ($i % 16 === 0) {
                    $tick = new Deferred($loop);
                    $loop->defer(static fn() => $tick->resolve(null));
                    $tick->future()->await(); // a producer may await between pieces
                }
                yield $piece;
            }
        });
        $response = $this->client->post("{$base}/upload", $body)->await(10.0);
        self::assertSame('chunked 1048576 ' . md5(implode('', $pieces)), $response->body());

        $file = fopen('php://temp', 'w+');
        \assert(\is_resource($file));
        fwrite($file, str_repeat('z', 200_000));
        rewind($file);
        $response = $this->client->post("{$base}/upload", RequestBody::fromResource($file), ['Content-Length' => '200000'])->await(10.0);
        self::assertSame('- 200000 ' . md5(str_repeat('z', 200_000)), $response->body());
        self::assertSame(1, $this->client->connectionCount());
    }

    public function testAStreamedResponseIsReadPieceByPieceAsTheServerProducesIt(): void
    {
        $loop = $this->loop;
        /** @var list<Deferred<null>> $gates */
        $gates = [new Deferred($loop), new Deferred($loop), new Deferred($loop)];
        $base = $this->serve(static fn(Request $r): Response => Response::stream(200, ['Content-Type' => 'application/json'], static function (ResponseStream $out) use ($gates): void {
            foreach ($gates as $i => $gate) {
                $out->write("{\"event\":{$i}}\n");
                $gate->future()->await();
            }
        }));
        $response = $this->client->get("{$base}/watch", [], new RequestOptions(stream: true, totalTimeout: \INF))->await(10.0);
        self::assertTrue($response->isStreamed());
        $body = $response->stream();
        self::assertSame("{\"event\":0}\n", $body->read());
        $gates[0]->resolve(null);
        self::assertSame("{\"event\":1}\n", $body->read());
        $gates[1]->resolve(null);
        self::assertSame("{\"event\":2}\n", $body->read());
        self::assertSame(1, $this->client->inFlight(), 'the watch is still open');
        $gates[2]->resolve(null);
        self::assertNull($body->read());
        self::assertTrue($body->isComplete());
        self::assertSame(1, $this->client->idleConnectionCount($base), 'the connection went back once the body ended');
    }

    public function testAReaderThatFallsBehindSlowsTheServerDown(): void
    {
        $pieces = 512;
        $produced = 0;
        $base = $this->serve(static fn(Request $r): Response => Response::stream(200, [], static function (ResponseStream $out) use ($pieces, &$produced): void {
            for ($i = 0; $i < $pieces; ++$i) {
                $out->write(str_pad((string) $i, 65_536, '.'));
                ++$produced;
            }
        }));
        $client = $this->client = $this->client(new ClientOptions(streamWindow: 262_144));
        $response = $client->get("{$base}/big", [], new RequestOptions(stream: true))->await(10.0);
        $memory = memory_get_usage();
        $this->runFor(0.5);
        self::assertLessThan($pieces, $produced, 'the server was held back while nobody read');
        self::assertLessThan(4 << 20, memory_get_usage() - $memory, 'the client held at most its window, not the stream');

        $total = 0;
        $next = 0;
        $carry = '';
        foreach ($response->stream() as $piece) {
            $total += \strlen($piece);
            $carry .= $piece;
            while (\strlen($carry) >= 65_536) {
                self::assertSame((string) $next, rtrim(substr($carry, 0, 65_536), '.'));
                $carry = substr($carry, 65_536);
                ++$next;
            }
        }
        self::assertSame($pieces * 65_536, $total);
        self::assertSame($pieces, $next, 'every piece, in order');
    }

    public function testClosingAStreamedBodyEarlyClosesItsConnection(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::stream(200, [], static function (ResponseStream $out): void {
            for ($i = 0; $i < 1000 && $out->isOpen(); ++$i) {
                $out->write(str_repeat('x', 65_536));
            }
        }));
        $response = $this->client->get("{$base}/", [], new RequestOptions(stream: true))->await(10.0);
        self::assertNotNull($response->stream()->read());
        $response->stream()->close();
        self::assertSame(0, $this->client->connectionCount());
        self::assertSame(0, $this->client->inFlight());
        self::assertNull($response->stream()->read());
    }

    public function testARefusedConnectionIsAConnectException(): void
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        \assert($socket !== false);
        $address = (string) stream_socket_get_name($socket, false);
        fclose($socket); // nobody listens there now

        $error = $this->failureOf($this->client->get("http://{$address}/"));
        self::assertInstanceOf(ConnectException::class, $error);
        self::assertStringContainsString('Is a server listening there?', $error->getMessage());
        self::assertSame(0, $this->client->connectionCount());
    }

    public function testAConnectThatHangsEndsInAConnectTimeout(): void
    {
        // A listener with a full accept queue: the kernel drops further SYNs, so a connect hangs.
        $context = stream_context_create(['socket' => ['backlog' => 0]]);
        $server = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        \assert($server !== false);
        $address = (string) stream_socket_get_name($server, false);
        $filler = stream_socket_client("tcp://{$address}", $errno, $errstr, 2.0);
        \assert($filler !== false);

        $client = $this->client = $this->client(new ClientOptions(connectTimeout: 0.3));
        $error = $this->failureOf($client->get("http://{$address}/"));
        self::assertInstanceOf(ConnectTimeoutException::class, $error, $error->getMessage());
        self::assertSame(TimeoutKind::Connect, $error->kind);
        self::assertSame(0, $client->connectionCount());
        fclose($filler);
        fclose($server);
    }

    public function testHostNamesResolveThroughTheResolver(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::text((string) $r->header('Host')));
        $port = (int) substr($base, (int) strrpos($base, ':') + 1);
        $client = $this->client = $this->client(new ClientOptions(resolver: new StaticResolver($this->loop, ['api.test' => '127.0.0.1'])));
        self::assertSame("api.test:{$port}", $client->get("http://api.test:{$port}/")->await(10.0)->body());
        $error = $this->failureOf($client->get("http://unknown.test:{$port}/"));
        self::assertInstanceOf(ConnectException::class, $error);
        self::assertStringContainsString('unknown.test', $error->getMessage());

        $system = $this->client(); // the SystemResolver: localhost comes from /etc/hosts
        self::assertSame("localhost:{$port}", $system->get("http://localhost:{$port}/")->await(10.0)->body());
        $system->close();
    }

    public function testInvalidRequestsFailAtOnceAndSendNothing(): void
    {
        $hits = 0;
        $base = $this->serve(static function () use (&$hits): Response {
            ++$hits;

            return Response::text('');
        });
        $cases = [
            [$this->client->get("{$base}/", ['X-Evil' => "a\r\nInjected: yes"]), 'line break'],
            [$this->client->get("{$base}/", ['Bad Name' => 'x']), 'Invalid header name'],
            [$this->client->request('GE T', "{$base}/"), 'Invalid method'],
            [$this->client->get('ftp://127.0.0.1/'), 'only http:// and https://'],
            [$this->client->get('/relative'), 'not an absolute URL'],
            [$this->client->get('http://user:pw@127.0.0.1/'), 'credentials'],
            [$this->client->get("{$base}/a b"), 'percent-encode'],
            [$this->client->post("{$base}/", 'abc', ['Content-Length' => '5']), 'Content-Length header says 5'],
        ];
        foreach ($cases as [$future, $message]) {
            $error = $this->failureOf($future);
            self::assertInstanceOf(InvalidRequestException::class, $error);
            self::assertStringContainsString($message, $error->getMessage());
        }
        self::assertSame(0, $hits);
        self::assertSame(0, $this->client->connectionCount());
    }

    public function testClosingTheClientFailsRequestsInFlight(): void
    {
        $never = new Deferred($this->loop);
        $base = $this->serve(static function () use ($never): Response {
            $never->future()->await(5.0);

            return Response::text('');
        });
        $future = $this->client->get("{$base}/");
        $this->runUntil(fn(): bool => $this->client->connectionCount() === 1 && $this->client->idleConnectionCount($base) === 0);
        $this->client->close();
        self::assertInstanceOf(ClientClosedException::class, $this->failureOf($future));
        self::assertInstanceOf(ClientClosedException::class, $this->failureOf($this->client->get("{$base}/")));
        $never->resolve(null);
    }
}
