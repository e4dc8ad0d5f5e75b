<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Http\Request;
use Nexus\Http\Response;
use Nexus\Io\Connector;
use Nexus\Io\Exception\ConnectException;
use Nexus\Log\MemoryLogger;
use Nexus\Runtime\Deferred;

final class RuntimeIntegrationTest extends HttpServerTestCase
{
    public function testAHandlerThatAsksAnActorGetsItsReply(): void
    {
        $systemLog = new MemoryLogger();
        $system = new ActorSystem('t', $systemLog, $this->loop);
        $this->loop->setErrorHandler(function (\Throwable $e): void {
            $this->loopErrors[] = $e;
        });
        $upper = $system->spawn(Behavior::receive(static function (mixed $message, ActorContext $ctx): null {
            \assert(\is_string($message));
            $ctx->reply(strtoupper($message));

            return null;
        }), 'upper');
        $this->serve(static function (Request $r) use ($upper): Response {
            $reply = $upper->ask(substr($r->path(), 1), 2.0)->await();
            \assert(\is_string($reply));

            return Response::text($reply);
        });
        $client = $this->connect();
        $client->send("GET /abc HTTP/1.1\r\nHost: x\r\n\r\nGET /def HTTP/1.1\r\nHost: x\r\n\r\n", requests: 2);
        $this->waitResponses($client, 2);

        self::assertSame(['ABC', 'DEF'], array_map(static fn(ReceivedResponse $r): string => $r->body, $client->responses));
        $shutdown = $system->shutdown(1.0);
        $this->runUntil(static fn(): bool => $shutdown->isSettled());
        self::assertSame([], $systemLog->messages('error'));
    }

    public function testGracefulStopFinishesInFlightRequestsAndRefusesNewConnections(): void
    {
        $loop = $this->loop;
        $server = $this->serve(static function (Request $r) use ($loop): Response {
            if ($r->path() === '/slow') {
                $timer = new Deferred($loop);
                $loop->delay(0.1, static fn() => $timer->resolve(null));
                $timer->future()->await();
            }

            return Response::text('done ' . $r->path());
        });
        $address = $server->address();
        $busy = $this->connect();
        $idle = $this->connect();
        $idle->send("GET /warm HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->waitResponses($idle, 1);
        $busy->send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runFor(0.02);

        $stopped = $server->stop(5.0);
        self::assertSame($stopped, $server->stop(5.0));
        $this->waitClosed($idle);
        self::assertCount(1, $idle->responses, 'the idle connection is closed without another response');
        self::assertFalse($stopped->isSettled(), 'the slow request is still in progress');

        $refused = false;
        try {
            Connector::connect($this->loop, $address)->await(1.0);
        } catch (ConnectException) {
            $refused = true;
        }
        self::assertTrue($refused, 'new connections are refused once stopping');

        $this->waitClosed($busy);
        self::assertSame('done /slow', $busy->responses[0]->body ?? null);
        self::assertSame('close', $busy->responses[0]->header('Connection'));
        $this->runUntil(static fn(): bool => $stopped->isSettled());
        self::assertSame(0, $server->connectionCount());
    }

    public function testStopClosesWhatIsLeftAtTheDeadline(): void
    {
        $never = new Deferred($this->loop);
        $server = $this->serve(static function () use ($never): Response {
            $never->future()->await();

            return Response::text('late');
        });
        $client = $this->connect();
        $client->send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        $this->runFor(0.02);
        $stopped = $server->stop(0.1);
        $this->runUntil(static fn(): bool => $stopped->isSettled());

        $this->waitClosed($client);
        self::assertSame([], $client->responses);
        $never->resolve(null);
        $this->loop->runUntilIdle();
    }
}
