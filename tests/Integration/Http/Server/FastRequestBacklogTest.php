<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Io\Connector;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Loop;

/**
 * A fast request (see FastRequestTest) whose turn comes only after the next request of its
 * connection was read, as when the scheduler has more runnables than one loop turn runs: it is
 * answered first, and each request counts its own bytes against the budget.
 */
final class FastRequestBacklogTest extends HttpServerTestCase
{
    private const GET = "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n";
    private const SECOND = "GET /second HTTP/1.1\r\nHost: x\r\n\r\n";

    /** @var list<string> the paths whose handlers started, in order */
    private array $started = [];
    /** @var list<int> the server's buffered bytes as each handler started */
    private array $buffered = [];

    protected function makeLoop(): Loop
    {
        return new Loop(schedulerBudget: 1); // one runnable per turn
    }

    public function testAFastRequestRunAfterTheNextOneWasReadIsAnsweredFirstWithItsOwnBytes(): void
    {
        /** @var Deferred<string> $second */
        $second = new Deferred($this->loop);
        $server = $this->serve(function (Request $request) use ($second): Response {
            $this->started[] = $request->path();
            $this->buffered[] = $this->server?->bufferedBytes() ?? -1;

            return Response::text($request->path() === '/second' ? $second->future()->await() : 'fast');
        });
        // No Nagle delay: the second request must leave at once, before the first is answered.
        $client = new ResponseReader(Connector::connect($this->loop, $server->address(), tcpNoDelay: true)->await(2.0));
        $client->send(self::GET);
        $this->waitResponses($client, 1); // now remembered

        $blocker = new BusyRunnable($this->loop->scheduler()); // takes the budget of every other turn
        $client->send(self::GET);
        $this->runUntil(static fn(): bool => $server->bufferedBytes() > 0); // read, not run yet
        self::assertCount(1, $this->started);
        $client->send(self::SECOND);
        $this->runUntil(fn(): bool => \count($client->responses) === 2 && \count($this->started) === 3);
        $blocker->busy = false;

        self::assertSame(['/fast', '/fast', '/second'], $this->started);
        self::assertSame(\strlen(self::GET) + \strlen(self::SECOND), $this->buffered[1], 'the second was read before the fast one ran');
        self::assertSame('fast', $client->responses[1]->body);
        self::assertSame(\strlen(self::SECOND), $server->bufferedBytes(), 'what is left in progress is the second request');
        $second->resolve('second');
        $this->waitResponses($client, 3);
        self::assertSame('second', $client->responses[2]->body);
        self::assertSame(0, $server->bufferedBytes());
        $client->connection->close();
    }
}
