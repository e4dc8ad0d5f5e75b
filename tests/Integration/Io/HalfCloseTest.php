<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Exception\ConnectionClosedException;

final class HalfCloseTest extends SocketTestCase
{
    public function testServerStillRepliesAfterClientEnds(): void
    {
        $server = $this->listen();
        $events = [];
        $server->onConnection(function (Connection $c) use (&$events): void {
            $this->track($c);
            $request = '';
            $c->onData(static function (string $data) use (&$request): void {
                $request .= $data;
            });
            $c->onEnd(static function () use ($c, &$request, &$events): void {
                $events[] = 'server end';
                $c->end('reply to ' . $request);
            });
            $c->onClose(static function (?\Throwable $reason) use (&$events): void {
                $events[] = 'server close ' . ($reason === null ? 'clean' : $reason->getMessage());
            });
        });

        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        $client->onClose(static function (?\Throwable $reason) use (&$events): void {
            $events[] = 'client close ' . ($reason === null ? 'clean' : $reason->getMessage());
        });
        $client->end('question');
        self::assertFalse($client->isWritable());
        self::assertFalse($client->isClosed(), 'the read side stays open after end()');

        self::assertSame('reply to question', $this->readAll($client)->await());
        $this->runUntil(static function () use (&$events): bool {
            return \count($events) === 3;
        });
        self::assertTrue($client->isClosed());
        self::assertSame('server end', $events[0]);
        self::assertContains('server close clean', $events);
        self::assertContains('client close clean', $events);
        self::assertSame(0, $server->connectionCount());
    }

    public function testWriteAfterEndOrCloseThrows(): void
    {
        $server = $this->echoServer();
        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        $client->end();
        try {
            $client->write('late');
            self::fail('write() after end() must throw');
        } catch (ConnectionClosedException $e) {
            self::assertStringContainsString('end()', $e->getMessage());
        }
        $client->close();
        $this->expectException(ConnectionClosedException::class);
        $client->write('later');
    }

    public function testPeerEofWithoutOnEndEndsOurSideToo(): void
    {
        $server = $this->listen();
        $server->onConnection(function (Connection $c): void {
            $this->track($c);
            $c->onData(static function (): void {});
        });
        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        $client->end('bye');
        self::assertNull($client->read()->await(), 'the server ends its side once it sees EOF');
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }
}
