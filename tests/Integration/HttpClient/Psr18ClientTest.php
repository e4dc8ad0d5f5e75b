<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\HttpClient;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\HttpClient\Psr\NetworkException;
use Nexus\HttpClient\Psr\Psr18Client;
use Nexus\HttpClient\Psr\RequestException;
use Nexus\Io\Connection;
use Nyholm\Psr7\Factory\Psr17Factory;
use Psr\Http\Client\ClientInterface;
use Psr\Http\Client\NetworkExceptionInterface;
use Psr\Http\Client\RequestExceptionInterface;

final class Psr18ClientTest extends HttpClientTestCase
{
    public function testSendsAPsr7RequestAndReturnsAPsr7Response(): void
    {
        $base = $this->serve(static fn(Request $r): Response => Response::text(
            $r->method() . ' ' . $r->target() . ' ' . ($r->header('X-Lib') ?? '-') . ' ' . \strlen($r->body()),
            $r->path() === '/missing' ? 404 : 201,
            ['X-Answer' => ['a', 'b']],
        ));
        $factory = new Psr17Factory();
        $psr = new Psr18Client($this->client);
        self::assertInstanceOf(ClientInterface::class, $psr);

        $request = $factory->createRequest('PUT', "{$base}/thing?x=1")
            ->withHeader('X-Lib', 'sdk')
            ->withBody($factory->createStream('12345'));
        $response = $psr->sendRequest($request);
        self::assertSame(201, $response->getStatusCode());
        self::assertSame('Created', $response->getReasonPhrase());
        self::assertSame('PUT /thing?x=1 sdk 5', (string) $response->getBody());
        self::assertSame(['a', 'b'], $response->getHeader('x-answer'));

        $large = $factory->createRequest('POST', "{$base}/big")->withBody($factory->createStream(str_repeat('x', 3 << 20)));
        self::assertSame('POST /big - 3145728', (string) $psr->sendRequest($large)->getBody(), 'a body over 1 MiB is streamed from the PSR stream');

        $notFound = $psr->sendRequest($factory->createRequest('GET', "{$base}/missing"));
        self::assertSame(404, $notFound->getStatusCode(), 'a 4xx is a response, not an exception');
    }

    public function testFailuresMapToThePsr18Exceptions(): void
    {
        $server = $this->raw(static function (Connection $c): void {
            $c->end("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n");
        });
        $factory = new Psr17Factory();
        $psr = new Psr18Client($this->client);
        $request = $factory->createRequest('GET', $server->url('/'));
        try {
            $psr->sendRequest($request);
            self::fail('A malformed answer must fail.');
        } catch (NetworkExceptionInterface $e) {
            self::assertInstanceOf(NetworkException::class, $e);
            self::assertSame($request, $e->getRequest());
            self::assertStringContainsString('both Content-Length and Transfer-Encoding', $e->getMessage());
        }

        $bad = $factory->createRequest('GET', 'ftp://127.0.0.1/');
        try {
            $psr->sendRequest($bad);
            self::fail('An ftp:// URL cannot be sent.');
        } catch (RequestExceptionInterface $e) {
            self::assertInstanceOf(RequestException::class, $e);
            self::assertStringContainsString('only http:// and https://', $e->getMessage());
        }
    }
}
