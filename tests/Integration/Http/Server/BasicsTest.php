<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;
use Nexus\Io\Connector;
use Nexus\Runtime\Deferred;

final class BasicsTest extends HttpServerTestCase
{
    public function testGetAnswers200WithDateAndContentLength(): void
    {
        $server = $this->hello();
        $client = $this->connect();
        $client->send("GET /world HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);

        $response = $client->responses[0];
        self::assertSame(200, $response->status);
        self::assertSame('Hello, /world', $response->body);
        self::assertSame('13', $response->header('Content-Length'));
        self::assertMatchesRegularExpression('/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/', (string) $response->header('Date'));
        self::assertNull($response->header('Connection'));
        self::assertFalse($client->closed);
        self::assertSame(1, $server->requestsServed());
        self::assertSame(1, $server->connectionCount());
        self::assertSame(1, $this->loop->scheduler()->fibersCreated(), 'a handler that does not wait needs no fiber of its own');
    }

    public function testKeepAliveServesSeveralRequestsOnOneConnection(): void
    {
        $server = $this->hello();
        $client = $this->connect();
        for ($i = 1; $i <= 5; ++$i) {
            $client->send("GET /{$i} HTTP/1.1\r\nHost: x\r\n\r\n");
            $this->waitResponses($client, $i);
        }
        self::assertSame(['Hello, /1', 'Hello, /2', 'Hello, /3', 'Hello, /4', 'Hello, /5'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
        self::assertFalse($client->closed);
        self::assertSame(5, $server->requestsServed());
    }

    public function testPipelinedResponsesKeepRequestOrderWhenAnEarlierHandlerWaits(): void
    {
        $loop = $this->loop;
        $order = [];
        $this->serve(static function (Request $r) use ($loop, &$order): Response {
            if ($r->path() === '/slow') {
                $timer = new Deferred($loop);
                $loop->delay(0.05, static fn() => $timer->resolve(null));
                $timer->future()->await();
            }
            $order[] = $r->path();

            return Response::text($r->path());
        });
        $client = $this->connect();
        $client->send(
            "GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast1 HTTP/1.1\r\nHost: x\r\n\r\nGET /fast2 HTTP/1.1\r\nHost: x\r\n\r\n",
            requests: 3,
        );
        $this->waitResponses($client, 3);

        self::assertSame(['/fast1', '/fast2', '/slow'], $order, 'the later handlers finished first');
        self::assertSame(['/slow', '/fast1', '/fast2'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
    }

    public function testPostWithContentLengthAndChunkedBodyIsEchoed(): void
    {
        $this->serve(static fn(Request $r): Response => Response::text($r->method() . ':' . $r->body()));
        $client = $this->connect();
        $client->send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world");
        $this->waitResponses($client, 1);
        $client->send("POST /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        $this->runFor(0.02);
        $client->send("6\r\n world\r\n0\r\n\r\n");
        $this->waitResponses($client, 2);

        self::assertSame('POST:hello world', $client->responses[0]->body);
        self::assertSame('POST:hello world', $client->responses[1]->body);
    }

    public function testHeadGetsTheHeadersOfGetButNoBody(): void
    {
        $this->hello();
        $client = $this->connect();
        $client->send("HEAD /abc HTTP/1.1\r\nHost: x\r\n\r\n", head: true);
        $client->send("GET /abc HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 2);

        self::assertSame(200, $client->responses[0]->status);
        self::assertSame('11', $client->responses[0]->header('Content-Length'));
        self::assertSame('', $client->responses[0]->body);
        self::assertSame('Hello, /abc', $client->responses[1]->body, 'nothing of a body was sent after the HEAD response');
    }

    public function testExpectContinueGetsTheInterimResponseBeforeTheBodyIsSent(): void
    {
        $this->serve(static fn(Request $r): Response => Response::text($r->body()));
        $client = $this->connect();
        $client->send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
        $this->runUntil(static fn(): bool => $client->interim !== [] || $client->closed);
        self::assertSame([100], $client->interim);
        self::assertSame("HTTP/1.1 100 Continue\r\n\r\n", $client->raw);
        self::assertSame([], $client->responses);

        $client->send('data');
        $this->waitResponses($client, 1);
        self::assertSame('data', $client->responses[0]->body);
    }

    public function testHttp10ClosesAfterTheResponseUnlessKeepAlive(): void
    {
        $this->hello();
        $client = $this->connect();
        $client->send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        $this->waitResponses($client, 1);
        self::assertSame('keep-alive', $client->responses[0]->header('Connection'));
        self::assertFalse($client->closed);

        $client->send("GET /b HTTP/1.0\r\n\r\n");
        $this->waitClosed($client);
        self::assertCount(2, $client->responses);
        self::assertSame('Hello, /b', $client->responses[1]->body);
        self::assertSame('close', $client->responses[1]->header('Connection'));
    }

    public function testConnectionCloseIsHonouredAndLaterPipelinedRequestsAreIgnored(): void
    {
        $server = $this->hello();
        $client = $this->connect();
        $client->send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitClosed($client);

        self::assertCount(1, $client->responses);
        self::assertSame('close', $client->responses[0]->header('Connection'));
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }

    public function testHandlerExceptionGives500AndTheServerGoesOn(): void
    {
        $this->serve(static function (Request $r): Response {
            if ($r->path() === '/boom') {
                throw new \RuntimeException('secret detail');
            }

            return Response::text('fine');
        });
        $client = $this->connect();
        $client->send("GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\n\r\n", requests: 2);
        $this->waitResponses($client, 2);

        self::assertSame(500, $client->responses[0]->status);
        self::assertStringNotContainsString('secret', $client->raw);
        self::assertSame('fine', $client->responses[1]->body);
        self::assertFalse($client->closed);
        self::assertSame(['The request handler threw for GET /boom: secret detail'], $this->logger->messages('error'));
    }

    public function testServesEveryAddressItListensOn(): void
    {
        $server = $this->hello();
        $server->listen('tcp://127.0.0.1:0');
        [$first, $second] = $server->addresses();
        self::assertSame($first, $server->address());
        self::assertNotSame($first, $second);

        $connection = Connector::connect($this->loop, $second)->await(2.0);
        $client = new ResponseReader($connection);
        $client->send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);
        self::assertSame('Hello, /second', $client->responses[0]->body);
        $connection->close();
    }

    public function testMorePipelinedRequestsThanTheLimitAreAllAnsweredInOrder(): void
    {
        $this->hello(new ServerOptions(maxPipelined: 2));
        $client = $this->connect();
        $batch = '';
        for ($i = 1; $i <= 7; ++$i) {
            $batch .= "GET /{$i} HTTP/1.1\r\nHost: x\r\n\r\n";
        }
        $client->send($batch, requests: 7);
        $this->waitResponses($client, 7);

        self::assertSame(['Hello, /1', 'Hello, /2', 'Hello, /3', 'Hello, /4', 'Hello, /5', 'Hello, /6', 'Hello, /7'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
    }

    public function testAnInterimStatusFromAHandlerBecomes500(): void
    {
        $this->serve(static fn(): Response => Response::empty(103));
        $client = $this->connect();
        $client->send("GET /early HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);

        self::assertSame([], $client->interim);
        self::assertSame(500, $client->responses[0]->status);
        self::assertSame(['The request handler answered GET /early with 103; only the server sends 1xx responses.'], $this->logger->messages('error'));
    }
}
