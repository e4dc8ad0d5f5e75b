<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Deferred;

final class LifecycleTest extends SocketTestCase
{
    public function testClosingEverythingLeavesTheLoopNotAlive(): void
    {
        $server = $this->echoServer();
        $client = Connector::connect($this->loop, $server->address())->await();
        $client->write('x');
        self::assertSame('x', $client->read()->await());
        $client->onData(static function (): void {});
        $client->write(str_repeat('y', 1 << 20)); // leaves a write watcher behind
        self::assertTrue($this->loop->isAlive());

        $closed = 0;
        $client->onClose(static function (?\Throwable $reason) use (&$closed): void {
            self::assertNull($reason);
            ++$closed;
        });
        $client->close();
        $client->close();
        self::assertSame(1, $closed, 'onClose fires once');
        self::assertSame(0, $client->bufferedBytes(), 'close() drops pending writes');
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
        $server->close();

        self::assertFalse($this->loop->isAlive());
        $this->loop->run(); // returns at once: nothing is left
    }

    public function testPauseAndResumeReading(): void
    {
        $server = $this->echoServer();
        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        /** @var Deferred<string> $received */
        $received = new Deferred($this->loop);
        $client->onData(static function (string $data) use ($received): void {
            $received->resolve($data);
        });
        $client->pause();
        self::assertTrue($client->isPaused());
        $client->write('while paused');
        $this->runFor(0.05);
        self::assertFalse($received->isSettled(), 'nothing is delivered while paused');

        $client->resume();
        self::assertSame('while paused', $received->future()->await());
        self::assertFalse($client->isPaused());
    }

    public function testListenerPauseAndResume(): void
    {
        $server = $this->echoServer();
        $server->pause();
        $connected = Connector::connect($this->loop, $server->address())->await();
        $this->track($connected);
        $this->runFor(0.05);
        self::assertSame(0, $server->connectionCount(), 'the kernel holds the connection; nothing is accepted');

        $server->resume();
        $connected->write('served');
        self::assertSame('served', $connected->read()->await());
        self::assertSame(1, $server->connectionCount());
    }

    public function testMaxConnectionsPausesAcceptingUntilOneCloses(): void
    {
        $accepted = [];
        $server = $this->listen(options: new ListenOptions(maxConnections: 2));
        $server->onConnection(function (Connection $c) use (&$accepted): void {
            $accepted[] = $this->track($c);
        });
        $clients = [];
        for ($i = 0; $i < 3; ++$i) {
            $clients[] = $this->track(Connector::connect($this->loop, $server->address())->await());
        }
        $this->runUntil(static function () use (&$accepted): bool {
            return \count($accepted) === 2;
        });
        $this->runFor(0.05);
        self::assertCount(2, $accepted, 'the third connection waits in the backlog');
        self::assertSame(2, $server->connectionCount());

        $accepted[0]->close();
        $this->runUntil(static function () use (&$accepted): bool {
            return \count($accepted) === 3;
        });
        self::assertSame(2, $server->connectionCount());
    }
}
