<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Exception\ConnectionLostException;
use Nexus\Runtime\Deferred;

final class PeerGoneTest extends SocketTestCase
{
    public function testPeerDisappearingMidWriteClosesWithAReason(): void
    {
        $server = $this->listen();
        /** @var Deferred<?\Throwable> $closed */
        $closed = new Deferred($this->loop);
        $server->onConnection(function (Connection $c) use ($closed): void {
            $this->track($c);
            $c->onClose(static function (?\Throwable $reason) use ($closed): void {
                $closed->resolve($reason);
            });
            $c->write(str_repeat('z', 4 << 20));
        });
        $client = Connector::connect($this->loop, $server->address())->await();
        $received = 0;
        $client->onData(static function (string $data) use (&$received, $client): void {
            $received += \strlen($data);
            // Unread bytes left behind make the kernel reset the connection.
            $client->close();
        });

        $reason = $closed->future()->await();
        self::assertInstanceOf(ConnectionLostException::class, $reason);
        self::assertStringContainsString('Writing to the connection failed', $reason->getMessage());
        self::assertGreaterThan(0, $received);
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }

    public function testPeerResetWhileReadingClosesWithAReasonOrEof(): void
    {
        $server = $this->listen();
        /** @var Deferred<?\Throwable> $closed */
        $closed = new Deferred($this->loop);
        $server->onConnection(function (Connection $c) use ($closed): void {
            $this->track($c);
            $c->onData(static function (): void {});
            $c->onEnd(static function () use ($c): void {
                $c->end('late reply');
            });
            $c->onClose(static function (?\Throwable $reason) use ($closed): void {
                $closed->resolve($reason);
            });
        });
        $client = Connector::connect($this->loop, $server->address())->await();
        $client->write('unanswered');
        $client->close();

        // Depending on timing the server sees EOF then a broken pipe, or a reset: either way it
        // closes, and nothing escapes the loop.
        $reason = $closed->future()->await();
        self::assertTrue($reason === null || $reason instanceof ConnectionLostException);
    }
}
