<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

/**
 * The bounds and choices of a WebSocket endpoint: the handshake (origins, subprotocols,
 * compression) and the connection (sizes, buffers, timeouts). Sizes are in bytes, times in
 * seconds. docs/websocket.md has the table of what happens at each bound.
 *
 * - maxFramePayload (default 1 MiB): the largest frame payload accepted; the length is read from
 *   the frame header, so a bigger frame fails the connection with 1009 before its payload is read.
 * - maxMessageSize (default 1 MiB): the largest message, after reassembling fragments and after
 *   decompression (the inflate cap). Past it: 1009. The compressed bytes of one message are held
 *   to maxMessageSize + 1/8 too, so a stream of empty deflate blocks cannot go on for ever.
 * - maxUnsentBytes (default 256 KiB): the per-connection cap on bytes queued for a client that
 *   does not read. While it is reached, reading from that client stops, a sender inside a fiber
 *   waits for the socket to drain (up to sendTimeout), and any other sender gets the
 *   overflowPolicy. A send is accepted while the queue is below the cap, so at most
 *   maxUnsentBytes plus one message are held. The cap takes effect above the socket's write
 *   high-water mark (Io\Connection, 64 KiB by default), whose drain signal it waits for.
 * - sendTimeout (default 10 s): how long a sender in a fiber waits at the cap before the
 *   overflowPolicy applies to its message.
 * - overflowPolicy (default Close): Drop (count it, SendResult::Dropped) or Close (1008).
 * - pingInterval (default 30 s, 0 = never): after this long without a byte from the peer, send a ping.
 * - idleTimeout (default 60 s, 0 = never): after this long without a byte from the peer (a pong
 *   counts), close with 1001.
 * - closeTimeout (default 5 s): after sending a close frame, how long to wait for the peer's
 *   close frame and for its end of the TCP connection before closing the socket outright.
 * - allowedOrigins (default null = any): the Origin values (scheme://host[:port], compared
 *   case-insensitively) a browser may open a connection from; others get 403. A request without
 *   Origin (not a browser) is allowed.
 * - subprotocols: the subprotocols this endpoint speaks, most preferred first; the first one the
 *   client also offers is chosen, and none is chosen when they share none.
 * - deflate: permessage-deflate settings, or null to never negotiate compression.
 *
 * On a route (Application::websocket()) also:
 * - handlerTimeout (default 30 s): how long one callback of the route's WebSocketHandler may take,
 *   counted from its start. Past it, its waits (an ask, a send at the cap) end with a
 *   CancelledException, within the sweep period (at most a second), and the connection is closed
 *   with 1011 as for any callback that throws. A callback that computes without waiting cannot
 *   be interrupted.
 * - maxQueuedMessages (default 16) and maxQueuedBytes (default 1 MiB): messages received and
 *   waiting for the handler (which handles one at a time). Once either is reached, reading from
 *   the client stops until the handler has taken half of them; so at most maxQueuedBytes plus one
 *   message wait.
 */
final readonly class WebSocketOptions
{
    /** Control frames (close, ping, pong) carry at most this many bytes (RFC 6455 §5.5). */
    public const MAX_CONTROL_PAYLOAD = 125;

    /**
     * @param list<string>|null $allowedOrigins
     * @param list<string> $subprotocols
     */
    public function __construct(
        public int $maxFramePayload = 1_048_576,
        public int $maxMessageSize = 1_048_576,
        public int $maxUnsentBytes = 262_144,
        public float $sendTimeout = 10.0,
        public OverflowPolicy $overflowPolicy = OverflowPolicy::Close,
        public float $pingInterval = 30.0,
        public float $idleTimeout = 60.0,
        public float $closeTimeout = 5.0,
        public ?array $allowedOrigins = null,
        public array $subprotocols = [],
        public ?DeflateOptions $deflate = new DeflateOptions(),
        public float $handlerTimeout = 30.0,
        public int $maxQueuedMessages = 16,
        public int $maxQueuedBytes = 1_048_576,
    ) {
        if ($maxFramePayload < self::MAX_CONTROL_PAYLOAD) {
            throw new \InvalidArgumentException("WebSocketOptions::\$maxFramePayload must be at least 125 bytes, got {$maxFramePayload}.");
        }
        if ($maxMessageSize < 1) {
            throw new \InvalidArgumentException("WebSocketOptions::\$maxMessageSize must be at least 1 byte, got {$maxMessageSize}.");
        }
        if ($maxUnsentBytes < 1) {
            throw new \InvalidArgumentException("WebSocketOptions::\$maxUnsentBytes must be at least 1 byte, got {$maxUnsentBytes}.");
        }
        if ($maxQueuedMessages < 1 || $maxQueuedBytes < 1) {
            throw new \InvalidArgumentException("WebSocketOptions::\$maxQueuedMessages and \$maxQueuedBytes must be at least 1, got {$maxQueuedMessages} and {$maxQueuedBytes}.");
        }
        foreach (['sendTimeout' => $sendTimeout, 'closeTimeout' => $closeTimeout, 'handlerTimeout' => $handlerTimeout] as $name => $value) {
            if (!($value > 0.0) || is_infinite($value)) {
                throw new \InvalidArgumentException(\sprintf('WebSocketOptions::$%s must be a finite number of seconds above zero, got %s.', $name, $value));
            }
        }
        foreach (['pingInterval' => $pingInterval, 'idleTimeout' => $idleTimeout] as $name => $value) {
            if (!($value >= 0.0) || is_infinite($value)) {
                throw new \InvalidArgumentException(\sprintf('WebSocketOptions::$%s must be a finite number of seconds, 0 to turn it off, got %s.', $name, $value));
            }
        }
        foreach ($subprotocols as $protocol) {
            if ($protocol === '' || strspn($protocol, Handshake::TOKEN_CHARS) !== \strlen($protocol)) {
                throw new \InvalidArgumentException("WebSocketOptions::\$subprotocols holds \"{$protocol}\", which is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~).");
            }
        }
        foreach ($allowedOrigins ?? [] as $origin) {
            if ($origin === '' || strpbrk($origin, " \t\r\n,") !== false) {
                throw new \InvalidArgumentException("WebSocketOptions::\$allowedOrigins holds \"{$origin}\"; give each origin as scheme://host[:port], e.g. https://example.com.");
            }
        }
    }
}
