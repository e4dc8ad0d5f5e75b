<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ResponseStream;
use Nexus\Http\Server\ServerOptions;
use Nexus\Http\Server\StreamClosedException;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\CancelledException;
use Nexus\Runtime\Exception\TimeoutException;

/**
 * The time limits of a request in progress: a handler's waits end at handlerTimeout (503), and
 * a client that stops reading its response is cut off after sendTimeout, which frees the buffers.
 */
final class TimeLimitTest extends HttpServerTestCase
{
    /** @var list<Deferred<string>> */
    private array $never = [];

    public function testAHandlerThatWaitsPastItsTimeLimitIsCancelledAndAnswered503(): void
    {
        $seen = null;
        $this->serve(function (Request $request) use (&$seen): Response {
            if ($request->path() === '/quick') {
                return Response::text('quick');
            }
            /** @var Deferred<string> $never */
            $never = new Deferred($this->loop);
            $this->never[] = $never;
            try {
                return Response::text($never->future()->await());
            } catch (CancelledException $e) {
                $seen = $e;
                if ($request->path() === '/stubborn') {
                    return Response::text('answered anyway'); // ignoring the cancellation changes nothing
                }

                throw $e;
            }
        }, new ServerOptions(handlerTimeout: 0.2));
        $client = $this->connect();
        $client->send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\nGET /stubborn HTTP/1.1\r\nHost: x\r\n\r\nGET /quick HTTP/1.1\r\nHost: x\r\n\r\n", requests: 3);
        $this->waitResponses($client, 3);

        self::assertSame([503, 503, 200], array_map(static fn(ReceivedResponse $r): int => $r->status, $client->responses));
        self::assertSame('quick', $client->responses[2]->body);
        self::assertFalse($client->closed, 'the connection goes on');
        self::assertInstanceOf(CancelledException::class, $seen, 'the waiting fiber was cancelled');
        self::assertInstanceOf(TimeoutException::class, $seen->getPrevious());
        self::assertCount(2, array_filter($this->logger->records, static fn(array $r): bool => str_contains($r['message'], 'ran out of its')));
    }

    public function testAHandlerThatWaitsAfterItsTimeIsUpIsCancelledAtOnce(): void
    {
        $loop = $this->loop;
        $this->serve(static function () use ($loop): Response {
            $started = $loop->now();
            while ($loop->clock()->now() - $started < 0.1) {
                // computes past its time limit without waiting
            }
            /** @var Deferred<string> $late */
            $late = new Deferred($loop);
            $loop->delay(5.0, static fn() => $late->resolve('too late'));

            return Response::text($late->future()->await());
        }, new ServerOptions(handlerTimeout: 0.05, headerTimeout: 5.0, keepAliveTimeout: 5.0, lingerTimeout: 5.0));
        $client = $this->connect();
        $client->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);

        self::assertSame(503, $client->responses[0]->status);
    }

    public function testAClientThatStopsReadingAStreamIsCutOffAfterTheSendTimeout(): void
    {
        $closedWith = null;
        $written = 0;
        $server = $this->serve(static function () use (&$closedWith, &$written): Response {
            return Response::stream(200, [], static function (ResponseStream $out) use (&$closedWith, &$written): void {
                $piece = str_repeat('s', 64 * 1024);
                try {
                    while ($out->isOpen()) { // an endless stream
                        $out->write($piece);
                        $written += \strlen($piece);
                    }
                } catch (StreamClosedException $e) {
                    $closedWith = $e;
                }
            });
        }, new ServerOptions(sendTimeout: 0.3));
        $client = $this->connect();
        $client->connection->pause(); // reads nothing
        $client->send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runUntil(static function () use (&$closedWith): bool {
            return $closedWith !== null;
        });

        self::assertInstanceOf(StreamClosedException::class, $closedWith, 'the producer learns the client is gone');
        self::assertGreaterThan(0, $written);
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
        self::assertNotEmpty(array_filter($this->logger->records, static fn(array $r): bool => str_contains($r['message'], 'sendTimeout')));
    }

    public function testAClientThatReadsSlowlyIsNotCutOff(): void
    {
        $bytes = 8 * 1024 * 1024;
        $this->serve(static function () use ($bytes): Response {
            return Response::stream(200, [], static function (ResponseStream $out) use ($bytes): void {
                $out->write(str_repeat('r', $bytes)); // more than the socket buffers take at once
            });
        }, new ServerOptions(sendTimeout: 0.5));
        $client = $this->connect();
        $client->send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
        // 64 KiB every 20 ms: what the kernel does not hold takes several send timeouts to go
        // out, but bytes keep moving, so the connection stays.
        $client->connection->pause();
        $reader = $this->loop->repeat(0.02, static function () use ($client): void {
            $client->connection->resume();
        });
        $client->connection->onData(static function () use ($client): void {
            $client->connection->pause();
        });
        $this->waitResponses($client, 1);
        $this->loop->cancel($reader);

        self::assertSame($bytes, \strlen($client->responses[0]->body));
        self::assertFalse($client->closed);
    }

    protected function tearDown(): void
    {
        foreach ($this->never as $deferred) {
            $deferred->resolve('released');
        }
        parent::tearDown();
    }
}
