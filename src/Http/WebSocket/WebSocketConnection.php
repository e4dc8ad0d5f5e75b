<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Http\WebSocket\Deflate\MessageDeflater;
use Nexus\Http\WebSocket\Deflate\MessageInflater;
use Nexus\Http\WebSocket\Exception\ControlFrameTooLargeException;
use Nexus\Http\WebSocket\Exception\InvalidCloseException;
use Nexus\Http\WebSocket\Exception\InvalidUtf8Exception;
use Nexus\Http\WebSocket\Exception\ProtocolException;
use Nexus\Io\Connection;
use Nexus\Io\ConnectionHandler;
use Nexus\Io\Exception\ConnectionClosedException;
use Nexus\Runtime\Loop;

/**
 * One WebSocket connection (RFC 6455, RFC 7692) on a socket that has finished its handshake: it
 * takes over the Io\Connection, delivers whole messages to onMessage(), and sends text, binary,
 * pings and close frames.
 *
 * What it promises:
 * - Messages are delivered whole and in order: fragments are joined, compressed messages
 *   inflated, text checked as UTF-8. Pings are answered with pongs, also between fragments.
 * - Every breach of the protocol fails the connection with its close code and no message is
 *   delivered from it: 1002 (masking, reserved bits or opcodes, control frame rules, fragment
 *   order, close frame payload and code), 1007 (text or close reason not UTF-8, bad deflate data),
 *   1009 (frame over maxFramePayload, message over maxMessageSize after inflation). An exception
 *   from a callback is reported to the loop's error handler and closes with 1011.
 * - Memory is bounded by the WebSocketOptions: one frame (maxFramePayload) and one message
 *   (maxMessageSize) in, maxUnsentBytes plus one message out. At maxUnsentBytes it stops reading
 *   from the peer, a sender in a fiber waits for the drain (up to sendTimeout), and other senders
 *   get the overflowPolicy (Drop, counted, or Close with 1008).
 * - The close handshake: close() sends a close frame and waits up to closeTimeout for the peer's;
 *   a close frame from the peer is answered with its code. Then this side ends the TCP
 *   connection, and closes it outright if the peer has not closed its side within closeTimeout.
 * - After pingInterval without a byte from the peer it sends a ping; after idleTimeout it closes
 *   with 1001.
 * - onClose() callbacks run exactly once, when the connection stops being usable: with the
 *   peer's code (1005 when its close frame had none) when the peer closed, the code this side
 *   sent when it closed or failed the connection, or 1006 when the socket ended without a close
 *   frame. Afterwards send() returns SendResult::Closed and nothing more is delivered.
 *
 * Callbacks run on the loop, outside any fiber; a send from them never waits. pause() and
 * resume() let a consumer that lags (an actor with a full mailbox) stop the flow of messages.
 *
 * An idle connection is kept small: the frame decoder, the reassembly buffer and the backpressure
 * state are made when first needed, it is the socket's ConnectionHandler (no closure), an owner
 * may receive through one MessageListener object instead of closures (listen()), and an owner
 * that watches many connections may check their idle timers in one sweep instead of a loop timer
 * each (sweepIdle()).
 */
final class WebSocketConnection implements ConnectionHandler
{
    private const OPEN = 0;
    /** This side sent a close frame and waits for the peer's. */
    private const CLOSING = 1;
    private const CLOSED = 2;

    private int $state = self::OPEN;
    private bool $started = false;
    /** Made with the first bytes from the peer. */
    private ?FrameDecoder $decoder = null;
    /** Made on the first fragmented or compressed message: most connections never need one. */
    private ?MessageAssembler $assembler = null;
    private readonly ?PerMessageDeflate $deflate;
    private readonly ?MessageDeflater $deflater;
    private readonly int $compressAbove;
    private readonly bool $mask;
    /** @var (\Closure(string, bool): void)|null */
    private ?\Closure $messageHandler = null;
    private ?MessageListener $listener = null;
    /** @var (\Closure(string): void)|null */
    private ?\Closure $pongHandler = null;
    /** @var list<\Closure(int, string): void> */
    private array $closeCallbacks = [];
    private int $closeCode = CloseCode::ABNORMAL;
    private string $closeReason = '';
    /** Made the first time the socket reports backpressure: most connections never need one. */
    private ?Backpressure $backpressure = null;
    private bool $userPaused = false;
    private bool $processing = false;
    private ?int $idleTimer = null;
    /** The idle checks are left to the owner's sweep (sweepIdle()). */
    private bool $swept = false;
    /**
     * With sweepIdle(): when checkIdle() is next due (a ping or the idle timeout), INF when never.
     * A property rather than a method because a sweep reads it for every connection.
     */
    public float $idleDeadline = \INF;
    private ?int $closeTimer = null;
    private float $lastHeard;
    private float $pingSentAt = -\INF;
    /** Whether ext-mbstring is there: the inline UTF-8 check is then Utf8Validator::isValid()'s own. */
    private static ?bool $mbstring = null;

    /**
     * @param ?string $subprotocol the one the handshake chose (HandshakeResult::$subprotocol)
     * @param ?PerMessageDeflate $deflate the compression the handshake agreed (HandshakeResult::$deflate)
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly Connection $connection,
        private readonly WebSocketOptions $options = new WebSocketOptions(),
        private readonly ?string $subprotocol = null,
        ?PerMessageDeflate $deflate = null,
        private readonly Role $role = Role::Server,
    ) {
        $server = $role === Role::Server;
        $this->mask = !$server;
        $this->deflate = $deflate;
        if ($deflate === null) {
            $this->deflater = null;
            $this->compressAbove = \PHP_INT_MAX;
        } else {
            $this->deflater = new MessageDeflater(
                $deflate->options,
                $server ? $deflate->serverMaxWindowBits : max(9, $deflate->clientMaxWindowBits),
                $server ? $deflate->serverNoContextTakeover : $deflate->clientNoContextTakeover,
            );
            $this->compressAbove = $deflate->options->threshold;
        }
        $this->lastHeard = $loop->now();
        self::$mbstring ??= \function_exists('mb_check_encoding');
    }

    /**
     * Sets the receiver of messages: $handler(string $payload, bool $binary). One receiver per
     * connection; it must be set before start().
     *
     * @param \Closure(string, bool): void $handler
     */
    public function onMessage(\Closure $handler): void
    {
        $this->messageHandler = $handler;
    }

    /**
     * Sets one object as the receiver of messages and of the close, instead of onMessage() and
     * onClose() closures (an owner that keeps one object per connection spends no closure on it).
     * It must be set before start(); its onClose() runs once, after the onClose() callbacks.
     */
    public function listen(MessageListener $listener): void
    {
        $this->listener = $listener;
    }

    /**
     * Leaves the ping and idle timeout checks to the caller, before start(): instead of a loop
     * timer of its own, the connection sets $idleDeadline and the caller calls checkIdle() once
     * that time has come (one sweep over many connections, at a period well below pingInterval
     * and idleTimeout).
     */
    public function sweepIdle(): void
    {
        if ($this->started) {
            throw new \LogicException('Call sweepIdle() before start().');
        }
        $this->swept = true;
    }

    /**
     * With sweepIdle(): sends the ping or closes for the idle timeout when due at $now.
     */
    public function checkIdle(float $now): void
    {
        if ($this->swept && $now >= $this->idleDeadline) {
            $this->idleDeadline = \INF;
            $this->onIdleTimer();
        }
    }

    /**
     * @param \Closure(string): void $handler called with the payload of each pong received
     */
    public function onPong(\Closure $handler): void
    {
        $this->pongHandler = $handler;
    }

    /**
     * @param \Closure(int, string): void $callback called once with the close code and reason (see the class comment)
     */
    public function onClose(\Closure $callback): void
    {
        if ($this->state === self::CLOSED) {
            $callback($this->closeCode, $this->closeReason);

            return;
        }
        $this->closeCallbacks[] = $callback;
    }

    /**
     * Starts reading frames and the idle timer.
     *
     * @param string $buffered bytes that arrived after the handshake's request head, if the
     *                         reader of the handshake already took them from the socket
     */
    public function start(string $buffered = ''): void
    {
        if ($this->started) {
            throw new \LogicException('This WebSocketConnection was already started.');
        }
        if ($this->messageHandler === null && $this->listener === null) {
            throw new \LogicException('Set onMessage() or listen() before start(): a message with nowhere to go would be lost.');
        }
        $this->started = true;
        $connection = $this->connection;
        $connection->attach($this);
        if ($this->state === self::CLOSED) {
            return;
        }
        if (!$this->userPaused) {
            $connection->resume();
        }
        $this->lastHeard = $this->loop->now();
        $this->armIdleTimer();
        if ($buffered !== '') {
            $this->dataReceived($buffered);
        }
    }

    /**
     * Sends a text message (UTF-8). See send().
     *
     * @throws InvalidUtf8Exception when $text is not valid UTF-8
     */
    public function sendText(string $text): SendResult
    {
        return $this->send($text, false);
    }

    /**
     * Sends a binary message. See send().
     */
    public function sendBinary(string $data): SendResult
    {
        return $this->send($data, true);
    }

    /**
     * Sends one message, compressed when permessage-deflate was agreed and it is at least the
     * threshold long. While maxUnsentBytes are unsent, a sender inside a fiber waits for the
     * drain (up to sendTimeout); otherwise, or after that, the overflowPolicy decides.
     *
     * @throws InvalidUtf8Exception when a text message is not valid UTF-8
     */
    public function send(string $payload, bool $binary = false): SendResult
    {
        if ($this->state !== self::OPEN) {
            return SendResult::Closed;
        }
        if (!$binary && !Utf8Validator::isValid($payload)) {
            throw new InvalidUtf8Exception('A text message must be valid UTF-8; send it with sendBinary(), or convert it (mb_convert_encoding()).');
        }

        return $this->sendChecked($payload, $binary, true);
    }

    /**
     * @internal send() of a text already checked as UTF-8 (the message being handled, sent back)
     */
    public function sendValidText(string $text): SendResult
    {
        if ($this->state !== self::OPEN) {
            return SendResult::Closed;
        }
        $length = \strlen($text);
        if ($length < 126 && $this->backpressure === null && !$this->mask && $length < $this->compressAbove) {
            // An echo's common case: sendChecked() and writeFrame() without the calls.
            try {
                if ($this->connection->write(FrameEncoder::SHORT_HEADS[$length] . $text)) {
                    return SendResult::Sent;
                }
            } catch (ConnectionClosedException) {
                return $this->sendResult(); // as writeFrame()
            }
            if (!$this->connection->isClosed()) {
                ($this->backpressure = new Backpressure($this->loop, $this->connection, $this->options->maxUnsentBytes, $this->options->sendTimeout))->refused();
            }

            return $this->sendResult();
        }

        return $this->sendChecked($text, false, true);
    }

    /**
     * What a send that wrote its frame tells: Closed when the write closed the connection.
     */
    private function sendResult(): SendResult
    {
        return $this->state === self::CLOSED ? SendResult::Closed : SendResult::Sent;
    }

    /**
     * Like send(), but never waits: at the unsent-bytes cap the overflowPolicy applies at once,
     * inside a fiber too (for a sender that must not be held up by one slow peer, such as a
     * broadcast).
     *
     * @throws InvalidUtf8Exception when a text message is not valid UTF-8
     */
    public function trySend(string $payload, bool $binary = false): SendResult
    {
        if ($this->state !== self::OPEN) {
            return SendResult::Closed;
        }
        if (!$binary && !Utf8Validator::isValid($payload)) {
            throw new InvalidUtf8Exception('A text message must be valid UTF-8; send it with sendBinary(), or convert it (mb_convert_encoding()).');
        }

        return $this->sendChecked($payload, $binary, false);
    }

    /**
     * Sends one message to each connection as trySend() would, checking the text and encoding
     * the frame once for all the uncompressed ones (a compressed connection deflates its own).
     * Returns how many connections took it (SendResult::Sent).
     *
     * @param iterable<WebSocketConnection> $connections server-side connections
     *
     * @throws InvalidUtf8Exception when a text message is not valid UTF-8
     */
    public static function broadcast(iterable $connections, string $payload, bool $binary = false): int
    {
        return self::broadcastAll($connections, [$payload], [$binary]);
    }

    /**
     * Sends several messages, in order, to each connection as trySend() would: each text is
     * checked and each frame encoded once, and an uncompressed connection gets them all in one
     * write (a compressed one deflates each for itself). At the cap the overflowPolicy applies to
     * them together (Drop counts each). Returns the messages taken, over all connections.
     *
     * @param iterable<WebSocketConnection> $connections server-side connections
     * @param list<string> $payloads
     * @param list<bool> $binary one per payload
     *
     * @throws InvalidUtf8Exception when a text message is not valid UTF-8
     */
    public static function broadcastAll(iterable $connections, array $payloads, array $binary): int
    {
        $frames = '';
        $bytes = 0;
        foreach ($payloads as $i => $payload) {
            if (!$binary[$i] && !Utf8Validator::isValid($payload)) {
                throw new InvalidUtf8Exception('A text message must be valid UTF-8; send it as binary, or convert it (mb_convert_encoding()).');
            }
            $frames .= FrameEncoder::encode($binary[$i] ? 0x2 : 0x1, $payload);
            $bytes += \strlen($payload);
        }
        $count = \count($payloads);
        $sent = 0;
        foreach ($connections as $connection) {
            if ($connection->state !== self::OPEN) {
                continue;
            }
            if ($connection->deflater === null && !$connection->mask) {
                $sent += $connection->sendBatch($frames, $count, $bytes);

                continue;
            }
            foreach ($payloads as $i => $payload) {
                if ($connection->sendChecked($payload, $binary[$i], false) === SendResult::Sent) {
                    ++$sent;
                }
            }
        }

        return $sent;
    }

    /**
     * Closes the socket at once, without the close handshake (onClose() gets 1006).
     */
    public function abort(): void
    {
        $this->connection->close();
    }

    /**
     * Sends a ping; the answer comes to onPong(). False when the connection is not open.
     *
     * @throws ControlFrameTooLargeException when $payload is longer than 125 bytes
     */
    public function ping(string $payload = ''): bool
    {
        if (\strlen($payload) > WebSocketOptions::MAX_CONTROL_PAYLOAD) {
            throw new ControlFrameTooLargeException('A ping carries at most 125 bytes, got ' . \strlen($payload) . '.');
        }
        if ($this->state !== self::OPEN) {
            return false;
        }
        $this->write(0x9, $payload);

        return true;
    }

    /**
     * Starts the close handshake: sends a close frame with $code and $reason, delivers no more
     * messages, and waits up to closeTimeout for the peer's close frame. Does nothing when the
     * connection is already closing or closed.
     *
     * @throws InvalidCloseException for a code that may not be sent or a reason over 123 bytes
     * @throws InvalidUtf8Exception when $reason is not UTF-8
     */
    public function close(int $code = CloseCode::NORMAL, string $reason = ''): void
    {
        if (!CloseCode::isValidOnWire($code)) {
            throw new InvalidCloseException("Close code {$code} may not be sent: use 1000-1003, 1007-1014 or an application code 3000-4999.");
        }
        if (\strlen($reason) > WebSocketOptions::MAX_CONTROL_PAYLOAD - 2) {
            throw new InvalidCloseException('A close reason is at most 123 bytes, got ' . \strlen($reason) . '.');
        }
        if (!Utf8Validator::isValid($reason)) {
            throw new InvalidUtf8Exception('A close reason must be valid UTF-8.');
        }
        if ($this->state !== self::OPEN) {
            return;
        }
        $this->state = self::CLOSING;
        $this->closeCode = $code;
        $this->closeReason = $reason;
        $this->write(0x8, FrameEncoder::closePayload($code, $reason));
        $this->cancelIdleTimer();
        $this->armCloseTimer();
        // The peer may not read at all: waiters for the drain give up now.
        $this->backpressure?->release();
    }

    /**
     * Stops delivering messages and reading from the peer until resume().
     */
    public function pause(): void
    {
        $this->userPaused = true;
        if (!$this->connection->isClosed()) {
            $this->connection->pause();
        }
    }

    public function resume(): void
    {
        if (!$this->userPaused) {
            return;
        }
        $this->userPaused = false;
        if ($this->backpressure?->isReadingPaused() !== true && !$this->connection->isClosed()) {
            $this->connection->resume();
            $this->scheduleProcessing();
        }
    }

    public function isOpen(): bool
    {
        return $this->state === self::OPEN;
    }

    /**
     * The close code once closed (see onClose()); null while open or closing.
     */
    public function closeCode(): ?int
    {
        return $this->state === self::CLOSED ? $this->closeCode : null;
    }

    public function closeReason(): string
    {
        return $this->closeReason;
    }

    public function subprotocol(): ?string
    {
        return $this->subprotocol;
    }

    public function isCompressed(): bool
    {
        return $this->deflater !== null;
    }

    public function role(): Role
    {
        return $this->role;
    }

    /**
     * Bytes queued on the socket that the peer has not taken yet.
     */
    public function unsentBytes(): int
    {
        return $this->connection->bufferedBytes();
    }

    /**
     * Messages not sent because of OverflowPolicy::Drop, and their bytes.
     */
    public function droppedMessages(): int
    {
        return $this->backpressure?->droppedMessages() ?? 0;
    }

    public function droppedBytes(): int
    {
        return $this->backpressure?->droppedBytes() ?? 0;
    }

    public function remoteAddress(): ?string
    {
        return $this->connection->remoteAddress();
    }

    public function localAddress(): ?string
    {
        return $this->connection->localAddress();
    }

    /**
     * @internal the socket's data (ConnectionHandler)
     */
    public function dataReceived(string $data): void
    {
        $this->lastHeard = $this->loop->now();
        if ($this->state === self::CLOSED) {
            return; // failed or closed: what the peer still sends is discarded until it closes
        }
        ($this->decoder ??= new FrameDecoder($this->role === Role::Server, $this->options->maxFramePayload, $this->deflate !== null))->feed($data);
        $this->process();
    }

    private function process(): void
    {
        if ($this->processing) {
            return;
        }
        $decoder = $this->decoder;
        if ($decoder === null) {
            return;
        }
        $this->processing = true;
        try {
            while ($this->state !== self::CLOSED && !$this->userPaused && $this->backpressure?->isReadingPaused() !== true) {
                $payload = $decoder->nextPayload();
                if ($payload === null) {
                    break;
                }
                $opcode = $decoder->opcode;
                if (($opcode === 0x1 || $opcode === 0x2) && $decoder->fin && !$decoder->rsv1 && $this->state === self::OPEN
                    && ($this->assembler === null || !$this->assembler->inProgress())) {
                    // The common case, handleFrame()'s without the calls: a whole, uncompressed
                    // message in one frame, delivered as deliver() would.
                    if (\strlen($payload) > $this->options->maxMessageSize) {
                        throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "A message of more than {$this->options->maxMessageSize} bytes.");
                    }
                    if ($opcode === 0x1 && !(self::$mbstring ? mb_check_encoding($payload, 'UTF-8') : Utf8Validator::isValid($payload))) {
                        throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'A text message is not valid UTF-8.');
                    }
                    $listener = $this->listener;
                    if ($listener === null) {
                        $this->deliver($payload, $opcode === 0x2);

                        continue;
                    }
                    try {
                        $listener->onMessage($payload, $opcode === 0x2);
                    } catch (\Throwable $e) {
                        $this->loop->reportError($e);
                        $this->close(CloseCode::INTERNAL_ERROR, 'internal error');
                    }

                    continue;
                }
                $this->handleFrame($opcode, $decoder->fin, $decoder->rsv1, $payload);
            }
        } catch (ProtocolException $e) {
            $this->fail($e->closeCode, $e->getMessage());
        } finally {
            $this->processing = false;
        }
    }

    private function handleFrame(int $opcode, bool $fin, bool $rsv1, string $payload): void
    {
        if ($opcode >= 0x8) {
            if ($opcode === 0x8) {
                $this->handlePeerClose($payload);
            } elseif ($opcode === 0x9) {
                if ($this->state === self::OPEN) {
                    $this->write(0xA, $payload);
                }
            } elseif ($this->pongHandler !== null) {
                $this->call($this->pongHandler, $payload);
            }

            return;
        }
        if ($this->state !== self::OPEN) {
            return; // this side sent its close frame: no more messages are delivered
        }
        $assembler = $this->assembler;
        if ($opcode !== 0x0 && $fin && !$rsv1 && ($assembler === null || !$assembler->inProgress())) {
            // The common case: a whole, uncompressed message in one frame.
            if (\strlen($payload) > $this->options->maxMessageSize) {
                throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "A message of more than {$this->options->maxMessageSize} bytes.");
            }
            if ($opcode === 0x1 && !Utf8Validator::isValid($payload)) {
                throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'A text message is not valid UTF-8.');
            }
            $this->deliver($payload, $opcode === 0x2);

            return;
        }
        $assembler ??= $this->assembler = new MessageAssembler($this->options->maxMessageSize, $this->deflate === null ? null : new MessageInflater(
            $this->role === Role::Server ? $this->deflate->clientNoContextTakeover : $this->deflate->serverNoContextTakeover,
        ));
        $message = $assembler->add(new Frame($opcode, $fin, $rsv1, $payload));
        if ($message !== null) {
            $this->deliver($message, $assembler->lastWasBinary());
        }
    }

    private function deliver(string $payload, bool $binary): void
    {
        try {
            if ($this->listener !== null) {
                $this->listener->onMessage($payload, $binary);
            } else {
                \assert($this->messageHandler !== null);
                ($this->messageHandler)($payload, $binary);
            }
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
            $this->close(CloseCode::INTERNAL_ERROR, 'internal error');
        }
    }

    /**
     * @param \Closure(string): void $handler
     */
    private function call(\Closure $handler, string $payload): void
    {
        try {
            $handler($payload);
        } catch (\Throwable $e) {
            $this->loop->reportError($e);
            $this->close(CloseCode::INTERNAL_ERROR, 'internal error');
        }
    }

    private function handlePeerClose(string $payload): void
    {
        $length = \strlen($payload);
        if ($length === 1) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'A close frame payload is empty or at least 2 bytes (a code), not 1.');
        }
        $code = CloseCode::NO_STATUS;
        $reason = '';
        if ($length >= 2) {
            $code = (\ord($payload[0]) << 8) | \ord($payload[1]);
            if (!CloseCode::isValidOnWire($code)) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, "Close code {$code} may not be sent.");
            }
            $reason = substr($payload, 2);
            if (!Utf8Validator::isValid($reason)) {
                throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'A close reason is not valid UTF-8.');
            }
        }
        if ($this->state === self::OPEN) {
            // The peer started the close: answer with its code, then end the TCP connection.
            $this->write(0x8, $length >= 2 ? substr($payload, 0, 2) : '');
            $this->finish($code, $reason);
        } else {
            $this->finish($this->closeCode, $this->closeReason);
        }
        $this->shutdown();
    }

    /**
     * Fails the connection (RFC 6455 §7.1.7): a close frame with $code if none was sent yet, then
     * the end of the TCP connection.
     */
    private function fail(int $code, string $reason): void
    {
        if ($this->state === self::OPEN) {
            $this->write(0x8, FrameEncoder::closePayload($code, self::truncate($reason)));
        }
        if ($this->state !== self::CLOSED) {
            $this->finish($code, $reason);
        }
        $this->shutdown();
    }

    private function shutdown(): void
    {
        if ($this->connection->isWritable()) {
            $this->connection->end();
        }
        $this->armCloseTimer();
    }

    private function finish(int $code, string $reason): void
    {
        if ($this->state === self::CLOSED) {
            return;
        }
        $this->state = self::CLOSED;
        $this->closeCode = $code;
        $this->closeReason = $reason;
        $this->cancelIdleTimer();
        $this->backpressure?->release();
        $callbacks = $this->closeCallbacks;
        $this->closeCallbacks = [];
        $this->messageHandler = $this->pongHandler = null;
        foreach ($callbacks as $callback) {
            try {
                $callback($code, $reason);
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
        $listener = $this->listener;
        if ($listener !== null) {
            $this->listener = null;
            try {
                $listener->onClose($code, $reason);
            } catch (\Throwable $e) {
                $this->loop->reportError($e);
            }
        }
    }

    private function sendChecked(string $payload, bool $binary, bool $wait): SendResult
    {
        $backpressure = $this->backpressure;
        if ($backpressure !== null && $backpressure->isFull()) {
            $blocked = $this->waitForRoom($backpressure, \strlen($payload), $wait);
            if ($blocked !== null) {
                return $blocked;
            }
        }
        $length = \strlen($payload);
        if ($length >= $this->compressAbove) {
            \assert($this->deflater !== null);
            $this->write($binary ? 0x2 : 0x1, $this->deflater->deflate($payload), true);
        } elseif ($length < 126 && !$this->mask) {
            // The common case, a short message from the server: its 2-byte header from the table.
            $this->writeFrame(FrameEncoder::SHORT_HEADS[$binary ? $length + 126 : $length] . $payload);
        } else {
            $this->write($binary ? 0x2 : 0x1, $payload);
        }

        return $this->state === self::CLOSED ? SendResult::Closed : SendResult::Sent;
    }

    /**
     * Writes frames already encoded ($count messages of $bytes payload bytes) as trySend() would
     * write one; returns how many were taken.
     */
    private function sendBatch(string $frames, int $count, int $bytes): int
    {
        $backpressure = $this->backpressure;
        if ($backpressure !== null && $backpressure->isFull()) {
            if ($this->options->overflowPolicy === OverflowPolicy::Drop) {
                $backpressure->dropped($bytes, $count);

                return 0;
            }
            $this->close(CloseCode::POLICY_VIOLATION, 'too many unsent bytes: the client does not read');

            return 0;
        }
        $this->writeFrame($frames);

        return $this->state === self::CLOSED ? 0 : $count;
    }

    private function write(int $opcode, string $payload, bool $rsv1 = false): void
    {
        $this->writeFrame(FrameEncoder::encode($opcode, $payload, true, $rsv1, $this->mask));
    }

    private function writeFrame(string $frame): void
    {
        $connection = $this->connection;
        try {
            if ($connection->write($frame)) {
                return;
            }
        } catch (ConnectionClosedException) {
            return; // closed or ending (what isWritable() tells, without asking it on every write)
        }
        if (!$connection->isClosed()) {
            ($this->backpressure ??= new Backpressure($this->loop, $connection, $this->options->maxUnsentBytes, $this->options->sendTimeout))->refused();
        }
    }

    private function waitForRoom(Backpressure $backpressure, int $size, bool $wait = true): ?SendResult
    {
        if ($wait && \Fiber::getCurrent() !== null) {
            $backpressure->waitForRoom();
            if ($this->state !== self::OPEN) {
                return SendResult::Closed;
            }
            if (!$backpressure->isFull()) {
                return null;
            }
        }
        if ($this->options->overflowPolicy === OverflowPolicy::Drop) {
            $backpressure->dropped($size);

            return SendResult::Dropped;
        }
        $this->close(CloseCode::POLICY_VIOLATION, 'too many unsent bytes: the client does not read');

        return SendResult::Closed;
    }

    /**
     * @internal the socket drained (ConnectionHandler)
     */
    public function drained(): void
    {
        if ($this->backpressure?->drained() === true && !$this->userPaused && !$this->connection->isClosed()) {
            $this->connection->resume();
            $this->scheduleProcessing();
        }
    }

    private function scheduleProcessing(): void
    {
        if ($this->decoder !== null && $this->decoder->bufferedBytes() > 0) {
            $this->loop->defer(function (): void {
                $this->process();
            });
        }
    }

    /**
     * @internal the peer ended its side (ConnectionHandler)
     */
    public function endReceived(): void
    {
        if ($this->state !== self::CLOSED) {
            $this->finish(CloseCode::ABNORMAL, 'the peer closed the TCP connection without a close frame');
        }
        // Flush what is queued (a close frame, say), then close our side too.
        if ($this->connection->isWritable()) {
            $this->connection->end();
        }
        $this->armCloseTimer();
    }

    /**
     * @internal the socket closed (ConnectionHandler)
     */
    public function closed(?\Throwable $reason): void
    {
        $this->cancelIdleTimer();
        if ($this->closeTimer !== null) {
            $this->loop->cancel($this->closeTimer);
            $this->closeTimer = null;
        }
        if ($this->state !== self::CLOSED) {
            $this->finish(CloseCode::ABNORMAL, $reason !== null
                ? 'the connection broke: ' . $reason->getMessage()
                : 'the connection closed without a close frame');
        }
    }

    private function armIdleTimer(): void
    {
        $ping = $this->options->pingInterval;
        $idle = $this->options->idleTimeout;
        if ($this->state !== self::OPEN || ($ping <= 0.0 && $idle <= 0.0)) {
            return;
        }
        $due = \INF;
        if ($idle > 0.0) {
            $due = $this->lastHeard + $idle;
        }
        if ($ping > 0.0) {
            $due = min($due, max($this->lastHeard, $this->pingSentAt) + $ping);
        }
        if ($this->swept) {
            $this->idleDeadline = $due;

            return;
        }
        $this->idleTimer = $this->loop->delay(max(0.001, $due - $this->loop->now()), $this->onIdleTimer(...));
        $this->loop->unreference($this->idleTimer);
    }

    private function onIdleTimer(): void
    {
        $this->idleTimer = null;
        if ($this->state !== self::OPEN) {
            return;
        }
        $now = $this->loop->now();
        $idle = $this->options->idleTimeout;
        if ($idle > 0.0 && $now - $this->lastHeard >= $idle) {
            $this->close(CloseCode::GOING_AWAY, 'idle timeout');

            return;
        }
        $ping = $this->options->pingInterval;
        if ($ping > 0.0 && $now - max($this->lastHeard, $this->pingSentAt) >= $ping) {
            // Silent for a ping interval (or since the last ping): ask for a sign of life.
            $this->pingSentAt = $now;
            $this->write(0x9, '');
        }
        $this->armIdleTimer();
    }

    private function cancelIdleTimer(): void
    {
        $this->idleDeadline = \INF;
        if ($this->idleTimer !== null) {
            $this->loop->cancel($this->idleTimer);
            $this->idleTimer = null;
        }
    }

    private function armCloseTimer(): void
    {
        if ($this->closeTimer !== null || $this->connection->isClosed()) {
            return;
        }
        $this->closeTimer = $this->loop->delay($this->options->closeTimeout, function (): void {
            $this->closeTimer = null;
            $this->finish($this->closeCode, $this->closeReason);
            $this->connection->close();
        });
    }

    private static function truncate(string $reason): string
    {
        if (\strlen($reason) <= 123) {
            return $reason;
        }
        // Cut at 123 bytes, then back off to a character boundary.
        $cut = substr($reason, 0, 123);
        for ($i = 0; $i < 3 && !Utf8Validator::isValid($cut); ++$i) {
            $cut = substr($cut, 0, -1);
        }

        return $cut;
    }
}
