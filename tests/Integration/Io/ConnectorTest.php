<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Exception\ConnectException;
use Nexus\Io\Exception\ConnectTimeoutException;
use Nexus\Io\ListenOptions;

final class ConnectorTest extends SocketTestCase
{
    public function testConnectToClosedPortFailsQuickly(): void
    {
        $listener = $this->listen();
        $address = $listener->address();
        $listener->close();

        $started = microtime(true);
        try {
            Connector::connect($this->loop, $address)->await();
            self::fail('connecting to a closed port must fail');
        } catch (ConnectException $e) {
            self::assertNotInstanceOf(ConnectTimeoutException::class, $e);
            self::assertStringContainsString($address, $e->getMessage());
        }
        self::assertLessThan(2.0, microtime(true) - $started);
        self::assertFalse($this->loop->isAlive(), 'a failed connect leaves no watcher or timer behind');
    }

    public function testConnectTimesOutWhenTheBacklogIsFull(): void
    {
        // A listener that never accepts, with the smallest backlog: once its queue is full the
        // kernel drops further SYNs, so the next connect hangs until our timeout.
        $listener = $this->listen(options: new ListenOptions(backlog: 1));
        $listener->pause();
        $timedOut = null;
        for ($i = 0; $i < 16 && $timedOut === null; ++$i) {
            try {
                $this->track(Connector::connect($this->loop, $listener->address(), 0.1)->await());
            } catch (ConnectTimeoutException $e) {
                $timedOut = $e;
            }
        }
        self::assertNotNull($timedOut, 'a connect to a full backlog times out');
        self::assertStringContainsString('within 0.100 s', $timedOut->getMessage());
    }

    public function testBadAddressesAreRejected(): void
    {
        $this->expectException(ConnectException::class);
        $this->expectExceptionMessage('tcp:// or unix://');
        Connector::connect($this->loop, '127.0.0.1:80')->await();
    }

    public function testMissingUnixSocketFails(): void
    {
        $this->expectException(ConnectException::class);
        Connector::connect($this->loop, 'unix://' . $this->tempDir() . '/missing.sock')->await();
    }

    public function testConnectedStreamIsAConnection(): void
    {
        $server = $this->echoServer();
        $client = Connector::connect($this->loop, $server->address(), 1.0)->await();
        $this->track($client);
        self::assertInstanceOf(Connection::class, $client);
        self::assertTrue($client->isWritable());
    }
}
