<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connector;
use Nexus\Io\Exception\ListenException;
use Nexus\Io\Listener;
use Nexus\Io\ListenOptions;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\EpollDriver;
use Nexus\Runtime\Driver\StreamSelectDriver;
use Nexus\Runtime\Loop;

final class ListenerTest extends SocketTestCase
{
    public function testReusePortLetsTwoListenersShareAPort(): void
    {
        $first = $this->listen(options: new ListenOptions(reusePort: true));
        $second = $this->listen($first->address(), new ListenOptions(reusePort: true));
        self::assertSame($first->address(), $second->address());
    }

    public function testSecondListenerWithoutReusePortFails(): void
    {
        $first = $this->listen();
        try {
            $this->listen($first->address());
            self::fail('binding a port in use must fail');
        } catch (ListenException $e) {
            self::assertStringContainsString('Could not listen on ' . $first->address(), $e->getMessage());
            self::assertStringContainsString('is the port in use', $e->getMessage());
        }
    }

    public function testOnAStreamSelectLoopTheCapIsAThousandAndMoreIsRefused(): void
    {
        $loop = new Loop(driver: new StreamSelectDriver());
        $listener = Listener::listen($loop, 'tcp://127.0.0.1:0');
        self::assertSame(ListenOptions::MAX_CONNECTIONS_LIMIT, $listener->maxConnections());
        $listener->close();

        $this->expectException(ListenException::class);
        $this->expectExceptionMessage('stream_select driver holds at most 1000 connections');
        Listener::listen($loop, 'tcp://127.0.0.1:0', new ListenOptions(maxConnections: 1001));
    }

    public function testOnAnEpollLoopTheCapIsTheDescriptorLimitLessTheReserve(): void
    {
        if (EpollDriver::unsupportedReason() !== null) {
            self::markTestSkipped('epoll is not available here.');
        }
        $limit = DriverFactory::descriptorLimit();
        $loop = new Loop(driver: new EpollDriver($limit));
        $listener = Listener::listen($loop, 'tcp://127.0.0.1:0', new ListenOptions(reservedDescriptors: 40));
        self::assertSame($limit - 40, $listener->maxConnections());
        $listener->close();
        $explicit = Listener::listen($loop, 'tcp://127.0.0.1:0', new ListenOptions(maxConnections: 5000));
        self::assertSame(5000, $explicit->maxConnections(), 'past 1,024 is fine with epoll');
        $explicit->close();

        $this->expectException(ListenException::class);
        $this->expectExceptionMessage('raise the descriptor limit');
        Listener::listen($loop, 'tcp://127.0.0.1:0', new ListenOptions(maxConnections: $limit));
    }

    public function testAddressWithoutSchemeIsRejected(): void
    {
        $this->expectException(ListenException::class);
        $this->expectExceptionMessage('tcp:// or unix://');
        $this->listen('127.0.0.1:0');
    }

    public function testUnixSocketInMissingDirectoryFails(): void
    {
        $this->expectException(ListenException::class);
        $this->expectExceptionMessage('does the directory exist');
        $this->listen('unix://' . $this->tempDir() . '/no/such/dir.sock');
    }

    public function testTcpNoDelayIsSetOnAcceptedConnections(): void
    {
        if (!\function_exists('socket_import_stream')) {
            self::markTestSkipped('needs ext-sockets to read the socket option');
        }
        $server = $this->listen(options: new ListenOptions(tcpNoDelay: true));
        $accepted = null;
        $server->onConnection(function ($c) use (&$accepted): void {
            $accepted = $this->track($c);
        });
        $client = Connector::connect($this->loop, $server->address())->await();
        $this->track($client);
        $this->runUntil(static function () use (&$accepted): bool {
            return $accepted !== null;
        });
        self::assertNotNull($accepted);
        $stream = (new \ReflectionProperty($accepted, 'stream'))->getValue($accepted);
        self::assertIsResource($stream);
        $socket = socket_import_stream($stream);
        self::assertInstanceOf(\Socket::class, $socket);
        self::assertSame(1, socket_get_option($socket, \SOL_TCP, \TCP_NODELAY));
    }

    public function testAFailingConnectionHandlerClosesThatConnectionAndReportsTheError(): void
    {
        $errors = [];
        $this->loop->setErrorHandler(static function (\Throwable $e) use (&$errors): void {
            $errors[] = $e->getMessage();
        });
        $server = $this->listen();
        $server->onConnection(static function (): void {
            throw new \RuntimeException('handler failed');
        });
        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        self::assertNull($client->read()->await(), 'the server closed the connection');
        self::assertSame(['handler failed'], $errors);
        self::assertSame(0, $server->connectionCount());
    }
}
