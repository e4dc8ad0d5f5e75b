<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;

/**
 * stop() with an idle grace, as a worker pool drains a worker it replaces: a request that an idle
 * keep-alive client sends just after the stop began is answered (with Connection: close), not cut.
 */
final class DrainTest extends HttpServerTestCase
{
    public function testAnIdleConnectionIsStillAnsweredDuringTheGraceAndThenClosed(): void
    {
        $server = $this->serve(static fn(Request $r): Response => Response::text('done ' . $r->path()));
        $client = $this->connect();
        $client->send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);

        $stopped = $server->stop(5.0, 1.0);
        $this->runFor(0.05);
        $client->send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 2);
        $this->waitClosed($client);

        self::assertSame('done /second', $client->responses[1]->body);
        self::assertSame('close', $client->responses[1]->header('connection'));
        $this->runUntil(static fn(): bool => $stopped->isSettled());
    }

    public function testAConnectionIdleThroughTheGraceIsClosedWithoutAResponse(): void
    {
        $server = $this->serve(static fn(Request $r): Response => Response::text('done'));
        $client = $this->connect();
        $client->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($client, 1);
        $started = microtime(true);

        $stopped = $server->stop(5.0, 0.2);
        $this->waitClosed($client);
        $this->runUntil(static fn(): bool => $stopped->isSettled());

        self::assertCount(1, $client->responses);
        self::assertGreaterThanOrEqual(0.15, microtime(true) - $started, 'the grace was waited out');
        self::assertLessThan(2.0, microtime(true) - $started);
    }
}
