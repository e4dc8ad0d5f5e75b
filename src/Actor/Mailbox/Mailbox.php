<?php

declare(strict_types=1);

namespace Nexus\Actor\Mailbox;

use Nexus\Actor\Envelope;

/**
 * A FIFO queue of envelopes, unbounded or bounded with an overflow policy. enqueue() says exactly
 * what became of the message; the actor turns that into dead letters, exceptions or waiting.
 */
final class Mailbox
{
    /** @var array<int, Envelope> */
    private array $queue = [];
    private int $head = 0;
    private int $tail = 0;
    private ?Envelope $displaced = null;

    public function __construct(
        public readonly int $capacity = \PHP_INT_MAX,
        public readonly OverflowPolicy $overflow = OverflowPolicy::DropNewest,
    ) {
        if ($capacity < 1) {
            throw new \InvalidArgumentException("A mailbox needs a capacity of at least 1, got {$capacity}.");
        }
    }

    public function enqueue(Envelope $envelope): EnqueueResult
    {
        if ($this->tail - $this->head < $this->capacity) {
            $this->queue[$this->tail++] = $envelope;

            return EnqueueResult::Accepted;
        }

        return match ($this->overflow) {
            OverflowPolicy::DropNewest => EnqueueResult::DroppedNewest,
            OverflowPolicy::DropOldest => $this->replaceOldest($envelope),
            OverflowPolicy::Reject, OverflowPolicy::Backpressure => EnqueueResult::Full,
        };
    }

    /**
     * Queues an envelope whatever the capacity: for what the runtime itself must not lose.
     */
    public function append(Envelope $envelope): void
    {
        $this->queue[$this->tail++] = $envelope;
    }

    public function dequeue(): ?Envelope
    {
        if ($this->head === $this->tail) {
            return null;
        }
        $envelope = $this->queue[$this->head];
        unset($this->queue[$this->head++]);
        if ($this->head === $this->tail) {
            $this->queue = [];
            $this->head = $this->tail = 0;
        }

        return $envelope;
    }

    /**
     * Puts envelopes back at the head of the queue, in the order given (unstash). Capacity does not
     * apply: they were accepted once already.
     *
     * @param list<Envelope> $envelopes
     */
    public function prepend(array $envelopes): void
    {
        if ($envelopes === []) {
            return;
        }
        $this->queue = array_merge($envelopes, array_values($this->queue));
        $this->head = 0;
        $this->tail = \count($this->queue);
    }

    /**
     * The envelope that the last AcceptedDroppingOldest pushed out.
     */
    public function takeDisplaced(): ?Envelope
    {
        $envelope = $this->displaced;
        $this->displaced = null;

        return $envelope;
    }

    public function count(): int
    {
        return $this->tail - $this->head;
    }

    public function isEmpty(): bool
    {
        return $this->head === $this->tail;
    }

    public function isFull(): bool
    {
        return $this->tail - $this->head >= $this->capacity;
    }

    /**
     * Empties the mailbox and returns what it held, oldest first.
     *
     * @return list<Envelope>
     */
    public function drain(): array
    {
        $envelopes = array_values($this->queue);
        $this->queue = [];
        $this->head = $this->tail = 0;

        return $envelopes;
    }

    private function replaceOldest(Envelope $envelope): EnqueueResult
    {
        $this->displaced = $this->dequeue();
        $this->queue[$this->tail++] = $envelope;

        return EnqueueResult::AcceptedDroppingOldest;
    }
}
