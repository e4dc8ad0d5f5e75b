<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\WebSocket\Exception\InvalidCloseException;
use Nexus\Http\WebSocket\Exception\InvalidUtf8Exception;
use Nexus\Http\WebSocket\Internal\Session;

/**
 * One connection of a WebSocket route, as its WebSocketHandler sees it.
 *
 * send() inside a callback (or any fiber) waits while WebSocketOptions::$maxUnsentBytes are
 * unsent to this client, up to sendTimeout; after that, and for trySend() at once, the route's
 * overflowPolicy decides: Drop (counted in droppedMessages()) or Close (1008). So a client that
 * stops reading never makes the server's memory grow past the cap.
 */
final class WebSocket
{
    private static int $lastId = 0;

    /** A number unique in this process, for logs and maps. */
    public readonly int $id;

    /**
     * State of the application's for this connection (a handler shared by every connection of a
     * route keeps its per-connection data here).
     *
     * @var array<string, mixed>
     */
    public array $attributes = [];

    /** @var list<\Closure(WebSocket): void>|null */
    private ?array $closeHooks = null;

    /**
     * @internal made by the route for each connection
     */
    public function __construct(
        private readonly WebSocketConnection $connection,
        /** Let go of once the handler is done with the connection (no cycle is left). */
        private ?Session $session,
    ) {
        $this->id = ++self::$lastId;
    }

    /**
     * Sends a message: text (valid UTF-8) unless $binary. In a fiber it waits at the cap (see the
     * class comment).
     *
     * @throws InvalidUtf8Exception when a text message is not valid UTF-8
     */
    public function send(string $payload, bool $binary = false): SendResult
    {
        if (!$binary && $payload === $this->session?->currentText) {
            return $this->connection->sendValidText($payload);
        }

        return $this->connection->send($payload, $binary);
    }

    /**
     * @throws InvalidUtf8Exception when $text is not valid UTF-8
     */
    public function sendText(string $text): SendResult
    {
        return $this->connection->send($text, false);
    }

    public function sendBinary(string $data): SendResult
    {
        return $this->connection->send($data, true);
    }

    /**
     * Like send(), but never waits: at the cap the overflowPolicy applies at once.
     *
     * @throws InvalidUtf8Exception when a text message is not valid UTF-8
     */
    public function trySend(string $payload, bool $binary = false): SendResult
    {
        return $this->connection->trySend($payload, $binary);
    }

    /**
     * Starts the close handshake with $code (1000-1003, 1007-1014, 3000-4999) and $reason (at
     * most 123 bytes). Nothing more is delivered; onClose() follows. Does nothing once closing.
     *
     * @throws InvalidCloseException for a code that may not be sent or a reason too long
     */
    public function close(int $code = CloseCode::NORMAL, string $reason = ''): void
    {
        $this->connection->close($code, $reason);
    }

    public function isOpen(): bool
    {
        return $this->connection->isOpen();
    }

    /**
     * The subprotocol the handshake chose (WebSocketOptions::$subprotocols), if any.
     */
    public function subprotocol(): ?string
    {
        return $this->connection->subprotocol();
    }

    public function isCompressed(): bool
    {
        return $this->connection->isCompressed();
    }

    public function remoteAddress(): ?string
    {
        return $this->connection->remoteAddress();
    }

    /**
     * Bytes queued for this client that it has not taken yet.
     */
    public function unsentBytes(): int
    {
        return $this->connection->unsentBytes();
    }

    /**
     * Messages received from the client and not yet handed to the handler (at most
     * WebSocketOptions::$maxQueuedMessages: then reading from the client waits).
     */
    public function pendingMessages(): int
    {
        return $this->session?->pendingMessages() ?? 0;
    }

    /**
     * Messages not sent because of OverflowPolicy::Drop, and their bytes.
     */
    public function droppedMessages(): int
    {
        return $this->connection->droppedMessages();
    }

    public function droppedBytes(): int
    {
        return $this->connection->droppedBytes();
    }

    /**
     * Calls $hook once, on the loop (it must not wait), when the connection has closed: before the
     * handler's onClose(), which waits for the messages queued ahead of it. At once when closed
     * already. For cleanup that must not wait (Topics unsubscribes this way).
     *
     * @param \Closure(WebSocket): void $hook
     */
    public function onClose(\Closure $hook): void
    {
        if ($this->connection->closeCode() !== null) {
            $hook($this);

            return;
        }
        $this->closeHooks[] = $hook;
    }

    /**
     * @internal the connection has closed: runs the hooks of onClose()
     *
     * @return list<\Throwable> what the hooks threw
     */
    public function runCloseHooks(): array
    {
        $hooks = $this->closeHooks ?? [];
        $this->closeHooks = null;
        $errors = [];
        foreach ($hooks as $hook) {
            try {
                $hook($this);
            } catch (\Throwable $e) {
                $errors[] = $e;
            }
        }

        return $errors;
    }

    /**
     * @internal the handler's onClose() has run
     */
    public function release(): void
    {
        $this->session = null;
    }

    /**
     * @internal
     */
    public function connection(): WebSocketConnection
    {
        return $this->connection;
    }
}
