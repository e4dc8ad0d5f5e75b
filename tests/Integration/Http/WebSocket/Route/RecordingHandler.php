<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\WebSocket\Route;

use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketHandler;

/**
 * A WebSocketHandler for tests: records every callback as a line ("open 3", "message 3 text hi",
 * "close 3 1000 bye"), and runs the test's closures in them (an echo by default).
 */
final class RecordingHandler implements WebSocketHandler
{
    /** @var list<string> */
    public array $events = [];
    /** @var list<WebSocket> */
    public array $sockets = [];

    /**
     * @param (\Closure(WebSocket, string, bool): void)|null $onMessage
     * @param (\Closure(WebSocket): void)|null $onOpen
     */
    public function __construct(
        private readonly ?\Closure $onMessage = null,
        private readonly ?\Closure $onOpen = null,
    ) {}

    public function onOpen(WebSocket $socket): void
    {
        $this->sockets[] = $socket;
        $this->events[] = "open {$socket->id}";
        if ($this->onOpen !== null) {
            ($this->onOpen)($socket);
        }
    }

    public function onMessage(WebSocket $socket, string $payload, bool $binary): void
    {
        $this->events[] = "message {$socket->id} " . ($binary ? 'binary' : 'text') . " {$payload}";
        if ($this->onMessage !== null) {
            ($this->onMessage)($socket, $payload, $binary);
        } else {
            $socket->send($payload, $binary);
        }
    }

    public function onClose(WebSocket $socket, int $code, string $reason): void
    {
        $this->events[] = "close {$socket->id} {$code} {$reason}";
    }

    /**
     * @return list<string> the events of one connection, without its id
     *
     * @phpstan-impure they grow as the connection goes on
     */
    public function eventsOf(WebSocket $socket): array
    {
        $prefix = " {$socket->id}";
        $events = [];
        foreach ($this->events as $event) {
            [$kind, $rest] = explode(' ', $event, 2) + [1 => ''];
            if (str_starts_with(" {$rest} ", "{$prefix} ")) {
                $events[] = trim($kind . substr(" {$rest}", \strlen($prefix)));
            }
        }

        return $events;
    }
}
