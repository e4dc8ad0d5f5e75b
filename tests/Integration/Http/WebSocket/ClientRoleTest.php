<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket;

use Nexus\Http\WebSocket\Role;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Tests\Support\WebSocket\ClientConnector;

/**
 * WebSocketConnection in the client role against our server: it masks what it sends (the
 * server would fail it with 1002 otherwise), accepts unmasked frames, and speaks
 * permessage-deflate from the other side.
 */
final class ClientRoleTest extends WebSocketTestCase
{
    public function testClientRoleEchoesWithAndWithoutCompression(): void
    {
        $server = $this->echoServer();
        foreach ([false, true] as $deflate) {
            $received = [];
            $client = ClientConnector::connect($this->loop, $server->address(), static function (string $payload, bool $binary) use (&$received): void {
                $received[] = [$payload, $binary];
            }, offerDeflate: $deflate);
            self::assertSame(Role::Client, $client->role());
            self::assertSame($deflate, $client->isCompressed());

            $big = str_repeat('compressible ', 5000);
            $client->sendText('hello');
            $client->sendBinary("\x00\x01\x02");
            $client->sendText($big);
            $this->runUntil(static function () use (&$received): bool {
                return \count($received) === 3;
            });

            self::assertSame([['hello', false], ["\x00\x01\x02", true], [$big, false]], $received);
            $server = $this->server;
            \assert($server !== null);
            $last = end($server->connections);
            \assert($last instanceof WebSocketConnection);
            self::assertTrue($last->isOpen(), 'the server accepted every masked frame');

            $closed = null;
            $client->onClose(static function (int $code) use (&$closed): void {
                $closed = $code;
            });
            $client->close(1000, 'bye');
            $this->runUntil(static function () use (&$closed): bool {
                return $closed !== null;
            });
            self::assertSame(1000, $closed);
        }
    }
}
