<?php

declare(strict_types=1);

namespace Nexus\Http\WebSocket;

use Nexus\Io\Connection;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Loop;

/**
 * The send side's bound for one WebSocketConnection: whether WebSocketOptions::$maxUnsentBytes
 * are queued for the peer, the wait for the socket to drain, and the count of dropped messages.
 *
 * "Full" means the socket reported backpressure (Io\Connection::write() returned false, so its
 * drain notification will come) and at least maxUnsentBytes are queued. While full, reading from
 * the peer is paused, so that a peer that does not read cannot make this side queue answers to
 * it (pongs, echoes) without end. Every wait ends on the drain, at sendTimeout, or on release()
 * (the connection closing).
 */
final class Backpressure
{
    /** The socket reported backpressure and has not drained since. */
    private bool $aboveMark = false;
    private bool $readingPaused = false;
    /** @var Deferred<bool>|null settled when the socket drains (true) or the connection closes (false) */
    private ?Deferred $drain = null;
    private int $droppedMessages = 0;
    private int $droppedBytes = 0;

    public function __construct(
        private readonly Loop $loop,
        private readonly Connection $connection,
        private readonly int $maxUnsentBytes,
        private readonly float $sendTimeout,
    ) {}

    public function isFull(): bool
    {
        return $this->aboveMark && $this->connection->bufferedBytes() >= $this->maxUnsentBytes;
    }

    /**
     * Whether reading is paused because the peer does not read.
     */
    public function isReadingPaused(): bool
    {
        return $this->readingPaused;
    }

    /**
     * To call when Io\Connection::write() returned false on an open connection.
     */
    public function refused(): void
    {
        $this->aboveMark = true;
        if (!$this->readingPaused && $this->connection->bufferedBytes() >= $this->maxUnsentBytes) {
            $this->readingPaused = true;
            $this->connection->pause();
        }
    }

    /**
     * To call from the socket's onDrain. Returns true when reading had been paused for want of
     * room: the caller resumes it unless the application paused the connection itself.
     */
    public function drained(): bool
    {
        $this->aboveMark = false;
        $wasPaused = $this->readingPaused;
        $this->readingPaused = false;
        $drain = $this->drain;
        $this->drain = null;
        $drain?->resolve(true);

        return $wasPaused;
    }

    /**
     * Suspends the current fiber until there is room, sendTimeout passes or release() is called;
     * the caller checks isFull() and the connection's state afterwards.
     */
    public function waitForRoom(): void
    {
        $deadline = $this->loop->now() + $this->sendTimeout;
        while ($this->isFull()) {
            $remaining = $deadline - $this->loop->now();
            if ($remaining <= 0.0) {
                return;
            }
            $this->drain ??= new Deferred($this->loop);
            try {
                if (!$this->drain->future()->await($remaining)) {
                    return;
                }
            } catch (TimeoutException) {
                return;
            }
        }
    }

    /**
     * Ends every wait: the connection is closing.
     */
    public function release(): void
    {
        $drain = $this->drain;
        $this->drain = null;
        $drain?->resolve(false);
    }

    public function dropped(int $bytes, int $messages = 1): void
    {
        $this->droppedMessages += $messages;
        $this->droppedBytes += $bytes;
    }

    public function droppedMessages(): int
    {
        return $this->droppedMessages;
    }

    public function droppedBytes(): int
    {
        return $this->droppedBytes;
    }
}
