<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;

final class LimitsTest extends HttpServerTestCase
{
    public function testAnIncompleteHeadGets408AndIsClosedAfterTheHeaderTimeout(): void
    {
        $this->hello(new ServerOptions(headerTimeout: 0.2));
        $client = $this->connect();
        $started = microtime(true);
        $client->send("GET / HTTP/1.1\r\nHost: x\r\n");
        $this->waitClosed($client);

        self::assertCount(1, $client->responses);
        self::assertSame(408, $client->responses[0]->status);
        self::assertSame('close', $client->responses[0]->header('Connection'));
        $elapsed = microtime(true) - $started;
        self::assertGreaterThan(0.15, $elapsed);
        self::assertLessThan(3.0, $elapsed);
    }

    public function testAHeadSentByteByByteDoesNotExtendTheHeaderTimeout(): void
    {
        $this->hello(new ServerOptions(headerTimeout: 0.2));
        $client = $this->connect();
        $timer = $this->loop->repeat(0.03, static function () use ($client): void {
            if ($client->connection->isWritable()) {
                $client->connection->write('X');
            }
        });
        $client->send("GET / HTTP/1.1\r\nX-Slow: ");
        $this->waitClosed($client);
        $this->loop->cancel($timer);

        self::assertSame(408, $client->responses[0]->status ?? null);
    }

    public function testABodyThatKeepsArrivingOutlastsTheHeaderTimeout(): void
    {
        $this->serve(
            static fn(Request $r): Response => Response::text('got ' . $r->body()),
            new ServerOptions(headerTimeout: 0.2, bodyTimeout: 0.5),
        );
        $client = $this->connect();
        $body = 'abcdefghijkl';
        $sent = 0;
        $timer = $this->loop->repeat(0.05, static function () use ($client, $body, &$sent): void {
            if ($sent < \strlen($body) && $client->connection->isWritable()) {
                $client->connection->write($body[$sent++]);
            }
        });
        $started = microtime(true);
        $client->send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n");
        $this->waitResponses($client, 1);
        $this->loop->cancel($timer);

        self::assertGreaterThan(0.4, microtime(true) - $started, 'the body took longer than the header timeout');
        self::assertSame(200, $client->responses[0]->status);
        self::assertSame('got abcdefghijkl', $client->responses[0]->body);
        self::assertFalse($client->closed);
    }

    public function testAChunkedBodyThatKeepsArrivingOutlastsTheHeaderTimeout(): void
    {
        $this->serve(
            static fn(Request $r): Response => Response::text('got ' . $r->body()),
            new ServerOptions(headerTimeout: 0.2, bodyTimeout: 0.5),
        );
        $client = $this->connect();
        $chunks = ["1\r\na\r\n", "1\r\nb\r\n", "1\r\nc\r\n", "1\r\nd\r\n", "1\r\ne\r\n", "1\r\nf\r\n", "0\r\n\r\n"];
        $sent = 0;
        $timer = $this->loop->repeat(0.08, static function () use ($client, $chunks, &$sent): void {
            if ($sent < \count($chunks) && $client->connection->isWritable()) {
                $client->connection->write($chunks[$sent++]);
            }
        });
        $client->send("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
        $this->waitResponses($client, 1);
        $this->loop->cancel($timer);

        self::assertSame(200, $client->responses[0]->status);
        self::assertSame('got abcdef', $client->responses[0]->body);
    }

    public function testAStalledBodyGets408AfterTheBodyTimeout(): void
    {
        $this->hello(new ServerOptions(headerTimeout: 5.0, bodyTimeout: 0.2));
        $client = $this->connect();
        $started = microtime(true);
        $client->send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
        $this->waitClosed($client);

        self::assertSame(408, $client->responses[0]->status ?? null);
        $elapsed = microtime(true) - $started;
        self::assertGreaterThan(0.15, $elapsed);
        self::assertLessThan(3.0, $elapsed, 'the body timeout, not the header timeout');
    }

    public function testAnIdleKeepAliveConnectionIsClosedSilentlyAfterItsTimeout(): void
    {
        $server = $this->hello(new ServerOptions(keepAliveTimeout: 0.2));
        $client = $this->connect();
        $client->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);
        $this->runFor(0.1);
        self::assertFalse($client->closed, 'not before the timeout');
        $this->waitClosed($client);

        self::assertCount(1, $client->responses, 'no 408 for a connection that was idle');
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }

    public function testMaxConnectionsMakesNewcomersWaitWhileTheOthersAreServed(): void
    {
        $server = $this->hello(new ServerOptions(maxConnections: 2));
        $first = $this->connect();
        $second = $this->connect();
        $third = $this->connect();
        $first->send("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
        $second->send("GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
        $third->send("GET /3 HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($first, 1);
        $this->waitResponses($second, 1);
        $this->runFor(0.1);
        self::assertSame([], $third->responses, 'the third waits in the backlog');
        self::assertSame(2, $server->connectionCount());

        $second->send("GET /2b HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($second, 2);
        self::assertSame([], $third->responses, 'existing connections are still served');

        $first->connection->close();
        $this->waitResponses($third, 1);
        self::assertSame('Hello, /3', $third->responses[0]->body);
    }

    public function testASlowReaderOfALargeResponseDoesNotDelayOtherClients(): void
    {
        $large = str_repeat('0123456789abcdef', 262_144); // 4 MiB
        $this->serve(static fn(Request $r): Response => Response::text($r->path() === '/large' ? $large : 'small'));
        $slow = $this->connect();
        $slow->connection->pause();
        $slow->send("GET /large HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n", requests: 2);
        $this->runFor(0.05);

        $other = $this->connect();
        $started = microtime(true);
        $other->send("GET /small HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($other, 1);
        self::assertLessThan(1.0, microtime(true) - $started);
        self::assertSame('small', $other->responses[0]->body);
        self::assertSame([], $slow->responses, 'the slow client is still stalled');

        $slow->connection->resume();
        $this->waitResponses($slow, 2);
        self::assertSame(md5($large), md5($slow->responses[0]->body));
        self::assertSame('small', $slow->responses[1]->body, 'the request behind the large response is read once it drained');
    }
}
