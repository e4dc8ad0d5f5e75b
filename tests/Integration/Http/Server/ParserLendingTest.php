<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;

/**
 * A connection holds a request parser only while it has part of a request (bytes that bring whole
 * requests go through the server's shared parser): idle keep-alive connections hold none, and a
 * connection that goes
 * idle and then sends again, pipelines, or splits a request over several reads gets the same
 * answers as with a parser of its own.
 */
final class ParserLendingTest extends HttpServerTestCase
{
    public function testKeepAliveConnectionsThatTakeTurnsShareOneParser(): void
    {
        $server = $this->hello();
        $clients = [];
        for ($i = 0; $i < 20; ++$i) {
            $clients[] = $this->connect();
        }
        for ($round = 1; $round <= 3; ++$round) {
            foreach ($clients as $i => $client) {
                $client->send("GET /{$i}-{$round} HTTP/1.1\r\nHost: x\r\n\r\n");
                $this->waitResponses($client, $round);
                self::assertSame("Hello, /{$i}-{$round}", $client->responses[$round - 1]->body);
            }
        }
        self::assertSame(60, $server->requestsServed());
        self::assertSame(1, $server->parsersCreated(), 'whole requests need only the shared parser');
    }

    public function testHeadsSplitOverReadsOnTwoConnectionsKeepTheirOwnParsers(): void
    {
        $server = $this->hello();
        $a = $this->connect();
        $b = $this->connect();
        $a->send("GET /a HTTP/1.1\r\nHo");
        $this->runUntil(static fn(): bool => $server->parsersCreated() === 2);
        // B's whole request and the start of its next while A holds its half head.
        $b->send("GET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HT", requests: 2);
        $this->waitResponses($b, 1);
        self::assertSame(3, $server->parsersCreated(), 'A kept its parser with its half head, and B one with its third of a head');
        $a->send("st: x\r\n\r\n", requests: 0);
        $this->waitResponses($a, 1);
        $b->send("TP/1.1\r\nHost: x\r\n\r\n", requests: 0);
        $this->waitResponses($b, 2);

        self::assertSame(['Hello, /a'], array_map(static fn(ReceivedResponse $r): string => $r->body, $a->responses));
        self::assertSame(['Hello, /b', 'Hello, /c'], array_map(static fn(ReceivedResponse $r): string => $r->body, $b->responses));
        // Both went idle: the next requests need no new parser.
        $a->send("GET /a2 HTTP/1.1\r\nHost: x\r\n\r\n");
        $b->send("GET /b2 HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($a, 2);
        $this->waitResponses($b, 3);
        self::assertSame('Hello, /a2', $a->responses[1]->body);
        self::assertSame('Hello, /b2', $b->responses[2]->body);
        self::assertSame(3, $server->parsersCreated(), 'both gave theirs back once idle');
    }

    public function testPipelinedPastMaxPipelinedThenIdleThenMore(): void
    {
        $server = $this->hello(new ServerOptions(maxPipelined: 2));
        $client = $this->connect();
        $batch = '';
        for ($i = 1; $i <= 10; ++$i) {
            $batch .= "GET /{$i} HTTP/1.1\r\nHost: x\r\n\r\n";
        }
        $client->send($batch, requests: 10);
        $this->waitResponses($client, 10);
        $client->send("GET /11 HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 11);

        $expected = array_map(static fn(int $i): string => "Hello, /{$i}", range(1, 11));
        self::assertSame($expected, array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
        self::assertFalse($client->closed);
        self::assertSame(2, $server->parsersCreated(), 'the connection kept one for the requests past maxPipelined');
    }

    public function testBodySplitOverReadsAfterTheConnectionWentIdle(): void
    {
        $server = $this->serve(static fn(Request $r): Response => Response::text($r->method() . ':' . $r->body()));
        $client = $this->connect();
        $client->send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);
        $client->send("POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello");
        $this->runUntil(static fn(): bool => $server->parsersCreated() === 2 && $server->bufferedBytes() > 0);
        $client->send(' world', requests: 0);
        $this->waitResponses($client, 2);
        $client->send("GET /last HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 3);

        self::assertSame(['GET:', 'POST:hello world', 'GET:'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
        self::assertSame(2, $server->parsersCreated());
    }

    public function testABadRequestAfterIdleIsRejectedAndTheNextConnectionIsServed(): void
    {
        $server = $this->hello();
        $bad = $this->connect();
        $bad->send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($bad, 1);
        $bad->send("NOT A REQUEST\r\n\r\n");
        $this->waitResponses($bad, 2);
        self::assertSame(400, $bad->responses[1]->status);
        $this->waitClosed($bad);

        $good = $this->connect();
        $good->send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($good, 1);
        self::assertSame('Hello, /next', $good->responses[0]->body);
        self::assertSame(2, $server->parsersCreated(), 'the connection with the bad request kept the failed parser');
    }
}
