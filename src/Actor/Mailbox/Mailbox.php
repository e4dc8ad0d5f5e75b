<?php

declare(strict_types=1);

namespace Nexus\Actor\Mailbox;

use Nexus\Actor\ActorRef;

/**
 * A FIFO queue of messages with their senders, unbounded or bounded with an overflow policy.
 * enqueue() says exactly what became of a message; the actor turns that into dead letters,
 * exceptions or waiting.
 *
 * Messages and senders sit in two parallel arrays indexed from head to tail, so that queueing a
 * message allocates nothing and taking one is O(1).
 */
final class Mailbox
{
    /** @var array<int, mixed> */
    private array $messages = [];
    /** @var array<int, ActorRef|null> */
    private array $senders = [];
    private int $head = 0;
    private int $tail = 0;

    /**
     * The message the last successful dequeue() took, or the one that AcceptedDroppingOldest
     * pushed out.
     */
    public mixed $message = null;
    /** Its sender. */
    public ?ActorRef $sender = null;

    public function __construct(
        public readonly int $capacity = \PHP_INT_MAX,
        public readonly OverflowPolicy $overflow = OverflowPolicy::DropNewest,
    ) {
        if ($capacity < 1) {
            throw new \InvalidArgumentException("A mailbox needs a capacity of at least 1, got {$capacity}.");
        }
    }

    public function enqueue(mixed $message, ?ActorRef $sender = null): EnqueueResult
    {
        if ($this->tail - $this->head < $this->capacity) {
            $this->messages[$this->tail] = $message;
            $this->senders[$this->tail++] = $sender;

            return EnqueueResult::Accepted;
        }

        return match ($this->overflow) {
            OverflowPolicy::DropNewest => EnqueueResult::DroppedNewest,
            OverflowPolicy::DropOldest => $this->replaceOldest($message, $sender),
            OverflowPolicy::Reject, OverflowPolicy::Backpressure => EnqueueResult::Full,
        };
    }

    /**
     * Queues a message whatever the capacity: for what the runtime itself must not lose.
     */
    public function append(mixed $message, ?ActorRef $sender): void
    {
        $this->messages[$this->tail] = $message;
        $this->senders[$this->tail++] = $sender;
    }

    /**
     * Takes the oldest message into $message and $sender; false when the mailbox is empty.
     */
    public function dequeue(): bool
    {
        $head = $this->head;
        if ($head === $this->tail) {
            return false;
        }
        $this->message = $this->messages[$head];
        $this->sender = $this->senders[$head];
        if (++$this->head === $this->tail) {
            $this->messages = $this->senders = [];
            $this->head = $this->tail = 0;
        } else {
            unset($this->messages[$head], $this->senders[$head]);
        }

        return true;
    }

    /**
     * Puts messages back at the head of the queue, in the order given (unstash). Capacity does not
     * apply: they were accepted once already.
     *
     * @param list<array{mixed, ActorRef|null}> $entries
     */
    public function prepend(array $entries): void
    {
        if ($entries === []) {
            return;
        }
        $messages = $senders = [];
        foreach ($entries as [$message, $sender]) {
            $messages[] = $message;
            $senders[] = $sender;
        }
        for ($i = $this->head; $i < $this->tail; ++$i) {
            $messages[] = $this->messages[$i];
            $senders[] = $this->senders[$i];
        }
        $this->messages = $messages;
        $this->senders = $senders;
        $this->head = 0;
        $this->tail = \count($messages);
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
     * @return list<array{mixed, ActorRef|null}>
     */
    public function drain(): array
    {
        $entries = [];
        for ($i = $this->head; $i < $this->tail; ++$i) {
            $entries[] = [$this->messages[$i], $this->senders[$i]];
        }
        $this->messages = $this->senders = [];
        $this->head = $this->tail = 0;

        return $entries;
    }

    private function replaceOldest(mixed $message, ?ActorRef $sender): EnqueueResult
    {
        $this->dequeue(); // leaves the oldest in $this->message and $this->sender
        $this->append($message, $sender);

        return EnqueueResult::AcceptedDroppingOldest;
    }
}
