<?php

declare(strict_types=1);

namespace Nexus\Tests\Support\WebSocket;

use Nexus\Http\WebSocket\DeflateOptions;
use Nexus\Http\WebSocket\ExtensionOffer;
use Nexus\Http\WebSocket\Handshake;
use Nexus\Http\WebSocket\PerMessageDeflate;
use Nexus\Http\WebSocket\Role;
use Nexus\Http\WebSocket\WebSocketConnection;
use Nexus\Http\WebSocket\WebSocketOptions;
use Nexus\Io\Connector;
use Nexus\Runtime\Loop;

/**
 * A client-side handshake for tests and benchmarks: connects, sends the upgrade request, checks
 * the 101 and its Sec-WebSocket-Accept, and returns a started WebSocketConnection in the client
 * role (it masks its frames). Reads the response with Connection::read(), so no callback of its
 * own is left on the socket. Plain TCP only: this is not a client library.
 */
final class ClientConnector
{
    private const MAX_HEAD = 16_384;

    private function __construct() {}

    /**
     * @param \Closure(string, bool): void $onMessage
     */
    public static function connect(
        Loop $loop,
        string $address,
        \Closure $onMessage,
        WebSocketOptions $options = new WebSocketOptions(),
        string $path = '/',
        bool $offerDeflate = false,
        float $timeout = 5.0,
    ): WebSocketConnection {
        $connection = Connector::connect($loop, $address, $timeout)->await($timeout);
        $key = base64_encode(random_bytes(16));
        $connection->write(
            "GET {$path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            . "Sec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n"
            . ($offerDeflate ? "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" : '')
            . "\r\n",
        );
        $head = '';
        while (($end = strpos($head, "\r\n\r\n")) === false) {
            $chunk = $connection->read()->await($timeout);
            if ($chunk === null || \strlen($head) > self::MAX_HEAD) {
                $connection->close();

                throw new \RuntimeException("No handshake response from {$address}: " . var_export($head, true));
            }
            $head .= $chunk;
        }
        $lines = explode("\r\n", substr($head, 0, $end));
        $headers = [];
        foreach (\array_slice($lines, 1) as $line) {
            [$name, $value] = explode(':', $line, 2) + [1 => ''];
            $headers[strtolower(trim($name))] = trim($value);
        }
        if (!str_starts_with($lines[0], 'HTTP/1.1 101 ') || ($headers['sec-websocket-accept'] ?? '') !== Handshake::acceptKey($key)) {
            $connection->close();

            throw new \RuntimeException("The handshake with {$address} failed: {$lines[0]}");
        }
        $deflate = isset($headers['sec-websocket-extensions']) ? self::agreed($headers['sec-websocket-extensions']) : null;
        $ws = new WebSocketConnection($loop, $connection, $options, $headers['sec-websocket-protocol'] ?? null, $deflate, Role::Client);
        $ws->onMessage($onMessage);
        $ws->start(substr($head, $end + 4));

        return $ws;
    }

    private static function agreed(string $field): PerMessageDeflate
    {
        $serverNoContext = $clientNoContext = false;
        $serverBits = $clientBits = 15;
        foreach (ExtensionOffer::parse($field)[0]->params as [$name, $value]) {
            match ($name) {
                'server_no_context_takeover' => $serverNoContext = true,
                'client_no_context_takeover' => $clientNoContext = true,
                'server_max_window_bits' => $serverBits = (int) $value,
                'client_max_window_bits' => $clientBits = (int) $value,
                default => throw new \RuntimeException("The server answered with an unknown permessage-deflate parameter {$name}."),
            };
        }

        return new PerMessageDeflate($serverNoContext, $clientNoContext, $serverBits, $clientBits, new DeflateOptions());
    }
}
