<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connector;
use Nexus\Io\Exception\ListenException;
use Nexus\Io\ListenOptions;

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
