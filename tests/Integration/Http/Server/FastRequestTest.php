<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\HttpServer;
use Nexus\Http\Server\RequestTask;
use Nexus\Http\Server\ResponseStream;
use Nexus\Http\Server\ServerConnection;
use Nexus\Http\Server\ServerOptions;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;

/**
 * Fast requests: bytes a connection with nothing in progress receives that are exactly a plain
 * request the server parsed before are answered from a clone of it, by the connection itself
 * (ServerConnection::run()), until something needs a RequestTask (a wait, a stream, a refusal).
 * Every test first sends the request once to have it remembered, then checks that the next ones
 * took that way (the handler's ambient cancellation is the connection) and behave like any other.
 */
final class FastRequestTest extends HttpServerTestCase
{
    private const GET = "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";

    /** @var list<string> the ambient cancellation each handler call saw first: 'fast' or 'task' */
    private array $ways = [];
    /** @var list<Deferred<string>> */
    private array $pending = [];

    public function testARequestSeenBeforeIsAnsweredWithoutParsingOnEveryConnection(): void
    {
        $buffered = [];
        $server = $this->serveNoting(function (Request $request) use (&$buffered): Response {
            $buffered[] = $this->server?->bufferedBytes();

            return Response::text('fast ' . $request->path() . ' ' . ($request->clientAddress() === null ? 'nowhere' : 'from a client'));
        });
        $first = $this->connect();
        for ($i = 1; $i <= 3; ++$i) {
            $first->send(self::GET);
            $this->waitResponses($first, $i);
        }
        $second = $this->connect();
        $second->send(self::GET);
        $this->waitResponses($second, 1);

        self::assertSame(['task', 'fast', 'fast', 'fast'], $this->ways, 'the first one was parsed, the others were not');
        self::assertSame(array_fill(0, 4, \strlen(self::GET)), $buffered, 'a request in progress counts against the buffer budget');
        self::assertSame(0, $server->bufferedBytes());
        foreach ([...$first->responses, ...$second->responses] as $response) {
            self::assertSame(200, $response->status);
            self::assertSame('fast /fast from a client', $response->body);
            self::assertNull($response->header('connection'), 'keep-alive');
        }
        self::assertSame(4, $server->requestsServed());
        self::assertFalse($first->closed);
    }

    public function testEachFastRequestIsAFreshRequestObject(): void
    {
        $seen = [];
        $this->serveNoting(static function (Request $request) use (&$seen): Response {
            $seen[] = [$request->attributes, $request->routeTemplate, spl_object_id($request)];
            $request->attributes['mine'] = \count($seen);
            $request->routeTemplate = '/changed';

            return Response::text('ok');
        });
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);
        $client->send(self::GET);
        $this->waitResponses($client, 3);

        self::assertSame(['task', 'fast', 'fast'], $this->ways);
        foreach ($seen as [$attributes, $template]) {
            self::assertSame([], $attributes, 'what a handler did to its request stays with it');
            self::assertNull($template);
        }
    }

    public function testTheSameResponseObjectIsWrittenWithTheDateOfItsSecond(): void
    {
        $a = Response::text('a');
        $b = Response::json(['b' => true]);
        $this->serveNoting(static fn(Request $request): Response => $request->path() === '/a' ? $a : $b);
        $client = $this->prime();
        $getA = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
        $getB = "GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
        $sent = 1;
        foreach ([$getA, $getB, $getA, $getA, $getB] as $bytes) {
            $client->send($bytes);
            $this->waitResponses($client, ++$sent);
        }
        self::assertSame(['{"b":true}', 'a', '{"b":true}', 'a', 'a', '{"b":true}'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
        self::assertSame(['text/plain; charset=utf-8', 'application/json'], [$client->responses[3]->header('content-type'), $client->responses[5]->header('content-type')]);

        // The same object again until the second changes: each response has the date it was written in.
        $first = $client->responses[$sent - 1]->header('date');
        $deadline = microtime(true) + 3.0;
        do {
            $before = time();
            $client->send($getA);
            $this->waitResponses($client, ++$sent);
            $date = $client->responses[$sent - 1]->header('date');
            $at = strtotime((string) $date);
            self::assertTrue($at >= $before && $at <= time(), "Date {$date} is when the response was written");
        } while ($date === $first && microtime(true) < $deadline);
        self::assertNotSame($first, $date, 'a new second, a new Date');
        self::assertSame('a', $client->responses[$sent - 1]->body);
    }

    public function testOnlyASmallResponseIsKeptAfterItWasWritten(): void
    {
        $large = Response::text(str_repeat('l', HttpServer::REMEMBERED_RESPONSE_MAX));
        $small = Response::text('small');
        $server = $this->serveNoting(static fn(Request $request): Response => $request->path() === '/fast' ? $large : $small);
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);
        self::assertNull($server->lastResponse, 'a large response is not kept');
        self::assertSame(HttpServer::REMEMBERED_RESPONSE_MAX, \strlen($client->responses[1]->body));

        $getSmall = "GET /small HTTP/1.1\r\nHost: x\r\n\r\n";
        $client->send($getSmall);
        $this->waitResponses($client, 3);
        $client->send($getSmall);
        $this->waitResponses($client, 4);
        self::assertSame($small, $server->lastResponse);
        self::assertSame('small', $client->responses[3]->body);
    }

    public function testAFastRequestWhoseHandlerWaitsBecomesATaskAndIsAnswered(): void
    {
        $server = $this->serveNoting(function (Request $request): Response {
            if ($this->ways === ['task']) {
                return Response::text('primed');
            }
            $answer = $this->waitFor();
            $cancellation = $this->loop->scheduler()->cancellation();

            return Response::text($answer . ($cancellation instanceof RequestTask ? ' as a task' : ' as something else'));
        });
        $client = $this->prime();
        $client->send(self::GET);
        $this->runUntil(fn(): bool => \count($this->pending) === 1);
        self::assertSame(\strlen(self::GET), $server->bufferedBytes(), 'still counted while its handler waits');
        $this->pending[0]->resolve('waited');
        $this->waitResponses($client, 2);

        self::assertSame(['task', 'fast'], $this->ways);
        self::assertSame('waited as a task', $client->responses[1]->body);
        self::assertSame(0, $server->bufferedBytes());
        $client->send(self::GET); // and the connection takes the fast way again
        $this->runUntil(fn(): bool => \count($this->pending) === 2);
        $this->pending[1]->resolve('again');
        $this->waitResponses($client, 3);
        self::assertSame('again as a task', $client->responses[2]->body);
        self::assertSame(['task', 'fast', 'fast'], $this->ways);
    }

    public function testTheTimeLimitOfAFastRequestCountsFromWhenItWasRead(): void
    {
        $loop = $this->loop;
        $cancelled = null;
        $this->serveNoting(function () use ($loop, &$cancelled): Response {
            if ($this->ways === ['task']) {
                return Response::text('primed');
            }
            $started = $loop->clock()->now();
            while ($loop->clock()->now() - $started < 0.15) {
                // computes past its time limit without waiting
            }
            try {
                return Response::text($this->waitFor());
            } catch (CancelledException $e) {
                $cancelled = $e;

                throw $e;
            }
        }, new ServerOptions(handlerTimeout: 0.1));
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);

        self::assertSame(503, $client->responses[1]->status);
        self::assertInstanceOf(CancelledException::class, $cancelled, 'its first wait ended at once');
        self::assertSame(['task', 'fast'], $this->ways);
        self::assertFalse($client->closed);
    }

    public function testARequestReadWhileAFastOneWaitsRunsMeanwhileAndIsAnsweredAfterIt(): void
    {
        $this->serveNoting(function (Request $request): Response {
            if ($this->ways === ['task']) {
                return Response::text('primed');
            }
            if ($request->path() === '/fast') {
                return Response::text('first: ' . $this->waitFor());
            }
            $this->pending[0]->resolve('released by the second');

            return Response::text('second');
        });
        $client = $this->prime();
        $client->send(self::GET);
        $this->runUntil(fn(): bool => \count($this->pending) === 1);
        $client->send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 3);

        self::assertSame(['first: released by the second', 'second'], [$client->responses[1]->body, $client->responses[2]->body]);
        self::assertSame(['task', 'fast', 'task'], $this->ways);
    }

    public function testAFastRequestMayStreamItsResponse(): void
    {
        $this->serveNoting(static fn(): Response => Response::stream(200, ['Content-Type' => 'text/plain'], static function (ResponseStream $out): void {
            $out->write('one ');
            $out->write('two');
        }));
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);
        $client->send(self::GET);
        $this->waitResponses($client, 3);

        self::assertSame(['task', 'fast', 'fast'], $this->ways);
        foreach ($client->responses as $response) {
            self::assertSame('chunked', $response->header('transfer-encoding'));
            self::assertSame('one two', $response->body);
        }
    }

    public function testAFastRequestWhoseHandlerThrowsIsAnswered500(): void
    {
        $this->serveNoting(function (): Response {
            if ($this->ways === ['task']) {
                return Response::text('primed');
            }

            throw new \RuntimeException('handler broke');
        });
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);
        $client->send(self::GET);
        $this->waitResponses($client, 3);

        self::assertSame([200, 500, 500], array_map(static fn(ReceivedResponse $r): int => $r->status, $client->responses));
        self::assertFalse($client->closed);
        self::assertCount(2, array_filter($this->logger->records, static fn(array $r): bool => str_contains($r['message'], 'handler threw')));
    }

    public function testAFastRequestAnswered1xxGets500(): void
    {
        $this->serveNoting(fn(): Response => $this->ways === ['task'] ? Response::text('primed') : new Response(102));
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);

        self::assertSame(500, $client->responses[1]->status);
        self::assertSame(['task', 'fast'], $this->ways);
    }

    public function testAFastRequestFromAHostNotAllowedGets421(): void
    {
        $this->serveNoting(static fn(): Response => Response::text('allowed'), new ServerOptions(allowedHosts: ['x']));
        $client = $this->prime();
        $misdirected = "GET /fast HTTP/1.1\r\nHost: elsewhere\r\n\r\n";
        $client->send($misdirected);
        $this->waitResponses($client, 2);
        $client->send($misdirected); // remembered as well: the host is checked on every request
        $this->waitResponses($client, 3);
        $client->send(self::GET);
        $this->waitResponses($client, 4);

        self::assertSame([200, 421, 421, 200], array_map(static fn(ReceivedResponse $r): int => $r->status, $client->responses));
        self::assertSame(['task', 'fast'], $this->ways, 'the handler never saw the misdirected ones');
    }

    public function testAServerStoppingWhileAFastRequestWaitsClosesAfterItsResponse(): void
    {
        $server = $this->serveNoting(fn(): Response => $this->ways === ['task'] ? Response::text('primed') : Response::text($this->waitFor()));
        $client = $this->prime();
        $client->send(self::GET);
        $this->runUntil(fn(): bool => \count($this->pending) === 1);
        $stopped = $server->stop(5.0);
        $this->pending[0]->resolve('last one');
        $this->waitResponses($client, 2);
        $this->waitClosed($client);
        $this->runUntil(static fn(): bool => $stopped->isSettled());
        $this->server = null;

        self::assertSame('last one', $client->responses[1]->body);
        self::assertSame('close', $client->responses[1]->header('connection'));
    }

    public function testAClientThatGoesAwayWhileAFastRequestWaitsLeavesNothingBehind(): void
    {
        $server = $this->serveNoting(fn(): Response => $this->ways === ['task'] ? Response::text('primed') : Response::text($this->waitFor()));
        $client = $this->prime();
        $client->send(self::GET);
        $this->runUntil(fn(): bool => \count($this->pending) === 1);
        $client->connection->close();
        $this->runFor(0.05);
        self::assertSame(\strlen(self::GET), $server->bufferedBytes(), 'its request is still in progress');
        $this->pending[0]->resolve('nobody listens');
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);

        self::assertSame(0, $server->bufferedBytes());
        self::assertSame(['task', 'fast'], $this->ways);
    }

    public function testWithOneRequestInProgressAtMostTheNextIsReadOnlyAfterTheFastOne(): void
    {
        $this->serveNoting(function (Request $request): Response {
            if ($this->ways === ['task']) {
                return Response::text('primed');
            }

            return Response::text($request->path() === '/fast' ? $this->waitFor() : 'second');
        }, new ServerOptions(maxPipelined: 1));
        $client = $this->prime();
        $client->send(self::GET);
        $this->runUntil(fn(): bool => \count($this->pending) === 1);
        $client->send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runFor(0.1);
        self::assertSame(['task', 'fast'], $this->ways, 'reading stopped: the second request is not read yet');
        $this->pending[0]->resolve('first');
        $this->waitResponses($client, 3);

        self::assertSame(['primed', 'first', 'second'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
    }

    public function testAFastRequestIsNotCutOffByTheIdleTimeoutItArrivedUnder(): void
    {
        $options = new ServerOptions(headerTimeout: 0.3, keepAliveTimeout: 0.3);
        $this->serveNoting(function () use ($options): Response {
            if ($this->ways === ['task']) {
                return Response::text('primed');
            }
            $this->loop->delay($options->keepAliveTimeout * 2, function (): void {
                $this->pending[0]->resolve('outlived the idle timeout');
            });

            return Response::text($this->waitFor());
        }, $options);
        $client = $this->prime();
        $client->send(self::GET);
        $this->waitResponses($client, 2);

        self::assertSame('outlived the idle timeout', $client->responses[1]->body);
        self::assertFalse($client->closed);
        $this->waitClosed($client); // and idle again, the keep-alive timeout applies
    }

    /**
     * @param \Closure(Request): Response $handler
     */
    private function serveNoting(\Closure $handler, ServerOptions $options = new ServerOptions()): HttpServer
    {
        return $this->serve(function (Request $request) use ($handler): Response {
            $cancellation = $this->loop->scheduler()->cancellation();
            $this->ways[] = $cancellation instanceof ServerConnection ? 'fast' : ($cancellation instanceof RequestTask ? 'task' : 'none');

            return $handler($request);
        }, $options);
    }

    /**
     * A client whose GET /fast was answered once (parsed the usual way): the server remembers it.
     */
    private function prime(): ResponseReader
    {
        $client = $this->connect();
        $client->send(self::GET);
        $this->waitResponses($client, 1);

        return $client;
    }

    private function waitFor(): string
    {
        /** @var Deferred<string> $deferred */
        $deferred = new Deferred($this->loop);
        $this->pending[] = $deferred;

        return $deferred->future()->await();
    }

    protected function tearDown(): void
    {
        foreach ($this->pending as $deferred) {
            $deferred->tryResolve('released');
        }
        parent::tearDown();
    }
}
