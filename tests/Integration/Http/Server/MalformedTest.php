<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Parser\ParserLimits;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;
use PHPUnit\Framework\Attributes\DataProvider;

final class MalformedTest extends HttpServerTestCase
{
    /**
     * @return iterable<string, array{string, int}>
     */
    public static function badRequests(): iterable
    {
        yield 'URI too long' => ['GET /' . str_repeat('a', 300) . " HTTP/1.1\r\nHost: x\r\n\r\n", 414];
        yield 'header block too large' => ["GET / HTTP/1.1\r\nHost: x\r\nX-Big: " . str_repeat('b', 600) . "\r\n\r\n", 431];
        yield 'smuggling: Content-Length with Transfer-Encoding' => ["POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400];
        yield 'unknown transfer coding' => ["POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: foo, chunked\r\n\r\n", 501];
        yield 'missing Host' => ["GET / HTTP/1.1\r\n\r\n", 400];
        yield 'bare LF' => ["GET / HTTP/1.1\nHost: x\n\n", 400];
        yield 'HTTP/2 request line' => ["GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505];
        yield 'unknown expectation' => ["POST / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\nContent-Length: 1\r\n\r\nx", 417];
    }

    #[DataProvider('badRequests')]
    public function testBadRequestIsAnsweredWithItsStatusThenClosed(string $request, int $status): void
    {
        $handled = 0;
        $server = $this->serve(static function () use (&$handled): Response {
            ++$handled;

            return Response::text('no');
        }, new ServerOptions(new ParserLimits(maxRequestLineLength: 256, maxHeaderBytes: 512)));
        $client = $this->connect();
        $client->send($request);
        $this->waitClosed($client);

        self::assertCount(1, $client->responses);
        self::assertSame($status, $client->responses[0]->status);
        self::assertSame('close', $client->responses[0]->header('Connection'));
        self::assertSame(0, $handled);
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }

    public function testBodyTooLargeIsRefusedFromTheDeclaredLengthWithoutSendingIt(): void
    {
        $this->serve(static fn(Request $r): Response => Response::text('no'), new ServerOptions(new ParserLimits(maxBodyBytes: 1024)));
        $client = $this->connect();
        $client->send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n");
        $this->waitClosed($client);

        self::assertCount(1, $client->responses);
        self::assertSame(413, $client->responses[0]->status);
        self::assertSame('close', $client->responses[0]->header('Connection'));
    }

    public function testGoodRequestsBeforeABadOneAreAnsweredFirstInOrder(): void
    {
        $this->hello();
        $client = $this->connect();
        $client->send("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\n\n", requests: 3);
        $this->waitClosed($client);

        self::assertSame([200, 200, 400], array_map(static fn(ReceivedResponse $r): int => $r->status, $client->responses));
        self::assertSame('Hello, /two', $client->responses[1]->body);
    }
}
