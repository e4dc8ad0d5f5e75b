<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;

final class EchoTest extends SocketTestCase
{
    public function testRoundTripFromTopLevelAwait(): void
    {
        $server = $this->echoServer();
        self::assertMatchesRegularExpression('~^tcp://127\.0\.0\.1:[1-9][0-9]*$~', $server->address());

        $client = $this->track(Connector::connect($this->loop, $server->address())->await());
        $client->write('hello');
        self::assertSame('hello', $client->read()->await());
        $client->write(' world');
        self::assertSame(' world', $client->read()->await());

        self::assertSame($server->address(), $client->remoteAddress());
        self::assertStringStartsWith('tcp://127.0.0.1:', (string) $client->localAddress());
    }

    public function testRoundTripInsideFibers(): void
    {
        $server = $this->echoServer();
        $futures = [];
        foreach (['a', 'b', 'c'] as $name) {
            $futures[] = $this->loop->async(function () use ($server, $name): string {
                $client = $this->track(Connector::connect($this->loop, $server->address())->await());
                $client->end("ping {$name}");
                $reply = '';
                while (($chunk = $client->read()->await()) !== null) {
                    $reply .= $chunk;
                }

                return $reply;
            });
        }

        self::assertSame(['ping a', 'ping b', 'ping c'], array_map(static fn($f): string => $f->await(), $futures));
    }

    public function testServesManyConcurrentClients(): void
    {
        $server = $this->echoServer();
        $futures = [];
        for ($i = 0; $i < 200; ++$i) {
            $futures[$i] = $this->loop->async(function () use ($server, $i): string {
                $client = Connector::connect($this->loop, $server->address())->await();
                $client->end("client {$i}");
                $reply = '';
                while (($chunk = $client->read()->await()) !== null) {
                    $reply .= $chunk;
                }
                $client->close();

                return $reply;
            });
        }

        foreach ($futures as $i => $future) {
            self::assertSame("client {$i}", $future->await());
        }
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }

    public function testUnixSocketListenAndConnect(): void
    {
        $path = $this->tempDir() . '/echo.sock';
        $server = $this->echoServer('unix://' . $path);
        self::assertSame('unix://' . $path, $server->address());

        $client = $this->track(Connector::connect($this->loop, 'unix://' . $path)->await());
        self::assertInstanceOf(Connection::class, $client);
        $client->write('over unix');
        self::assertSame('over unix', $client->read()->await());

        $server->close();
        self::assertFileDoesNotExist($path);
    }
}
