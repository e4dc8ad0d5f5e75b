<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;

/**
 * With an allow-list, a request that names another host gets 421 Misdirected Request without
 * reaching the handler; the connection goes on.
 */
final class AllowedHostsTest extends HttpServerTestCase
{
    public function testOnlyTheListedHostsReachTheHandler(): void
    {
        $handled = [];
        $this->serve(static function (Request $request) use (&$handled): Response {
            $handled[] = $request->header('host');

            return Response::text('ok');
        }, new ServerOptions(allowedHosts: ['a.example', 'B.Example', '[::1]']));
        $client = $this->connect();
        $hosts = ['a.example', 'A.EXAMPLE:8080', 'b.example', 'a.example.', '[::1]:80', 'c.example', 'a.example.evil', '127.0.0.1'];
        $requests = '';
        foreach ($hosts as $host) {
            $requests .= "GET / HTTP/1.1\r\nHost: {$host}\r\n\r\n";
        }
        $requests .= "GET http://c.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n"; // the target's authority wins
        $client->send($requests, requests: \count($hosts) + 1);
        $this->waitResponses($client, \count($hosts) + 1);

        self::assertSame(
            [200, 200, 200, 200, 200, 421, 421, 421, 421],
            array_map(static fn(ReceivedResponse $r): int => $r->status, $client->responses),
        );
        self::assertSame(['a.example', 'A.EXAMPLE:8080', 'b.example', 'a.example.', '[::1]:80'], $handled);
        self::assertFalse($client->closed, 'a misdirected request does not end the connection');
    }

    public function testAnHttp10RequestWithoutHostIsMisdirectedWhenHostsAreListed(): void
    {
        $this->serve(static fn(): Response => Response::text('ok'), new ServerOptions(allowedHosts: ['a.example']));
        $client = $this->connect();
        $client->send("GET / HTTP/1.0\r\n\r\n");
        $this->waitResponses($client, 1);

        self::assertSame(421, $client->responses[0]->status);
    }

    public function testWithoutAListEveryHostIsServed(): void
    {
        $this->serve(static fn(): Response => Response::text('ok'));
        $client = $this->connect();
        $client->send("GET / HTTP/1.1\r\nHost: anything.example\r\n\r\n");
        $this->waitResponses($client, 1);

        self::assertSame(200, $client->responses[0]->status);
    }
}
