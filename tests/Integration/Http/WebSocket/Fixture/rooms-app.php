<?php

declare(strict_types=1);

/*
 * GET /ws/lobby: a WebSocket that first says which worker it landed on ("worker N"), then joins
 * the topic "lobby"; each message it sends is published there. One handler serves every
 * connection.
 */

use Nexus\Actor\ActorSystem;
use Nexus\Http\Application;
use Nexus\Http\WebSocket\WebSocket;
use Nexus\Http\WebSocket\WebSocketHandler;
use Nexus\Worker\Topics;
use Nexus\Worker\Workers;

return static function (Application $app, ActorSystem $system, Workers $workers): void {
    $topics = new Topics($system, $workers, 'rooms');
    $app->websocket('/ws/lobby', new class ($topics, $workers->id) implements WebSocketHandler {
        public function __construct(private readonly Topics $topics, private readonly int $worker) {}

        public function onOpen(WebSocket $socket): void
        {
            $socket->send("worker {$this->worker}");
            $this->topics->subscribe('lobby', $socket);
        }

        public function onMessage(WebSocket $socket, string $payload, bool $binary): void
        {
            $this->topics->publish('lobby', $payload, $binary);
        }

        public function onClose(WebSocket $socket, int $code, string $reason): void {}
    });
};
