<?php

declare(strict_types=1);

namespace Nexus\Actor\Mailbox;

use Nexus\Actor\ActorRef;

/**
 * A FIFO queue of messages with their senders, unbounded or bounded with an overflow policy.
 * enqueue() says exactly what became of a message; the actor turns that into dead letters,
 * exceptions or waiting.
 *
 * Messages and senders sit in two parallel lists; $head is the oldest one not taken yet. Taking a
 * message only moves $head: the lists are emptied when everything is taken, and compacted once
 * the taken part outgrows the rest, so each message costs O(1) and allocates nothing.
 */
final class Mailbox
{
    /** @var list<mixed> */
    private array $messages = [];
    /** @var list<ActorRef|null> */
    private array $senders = [];
    /**
     * @internal the oldest message not taken yet; the actor's run loop advances it
     */
    public int $head = 0;
    /**
     * @internal changes whenever messages are taken or put back other than through $head, so that
     * a batch from peek() knows it is stale
     */
    public int $generation = 0;

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

    /**
     * Queues the message if there is room, as enqueue() does; false, queuing nothing, when the
     * mailbox is full (then enqueue() applies the overflow policy). The actor's fast path: a
     * bool, not an EnqueueResult (returning and comparing an enum case costs a class check).
     *
     * @internal
     */
    public function offer(mixed $message, ?ActorRef $sender): bool
    {
        if (\count($this->messages) - $this->head < $this->capacity) {
            $this->messages[] = $message;
            $this->senders[] = $sender;

            return true;
        }

        return false;
    }

    public function enqueue(mixed $message, ?ActorRef $sender = null): EnqueueResult
    {
        if (\count($this->messages) - $this->head < $this->capacity) {
            $this->messages[] = $message;
            $this->senders[] = $sender;

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
        $this->messages[] = $message;
        $this->senders[] = $sender;
    }

    /**
     * Takes the oldest message into $message and $sender; false when the mailbox is empty.
     */
    public function dequeue(): bool
    {
        $head = $this->head;
        if ($head === \count($this->messages)) {
            return false;
        }
        $this->message = $this->messages[$head];
        $this->sender = $this->senders[$head];
        $this->head = $head + 1;
        ++$this->generation;
        $this->reclaim();

        return true;
    }

    /**
     * Up to $max of the oldest messages, without taking them, and their senders. The actor's run
     * loop takes each one by incrementing $head before it handles it, and reads again once
     * $generation has changed.
     *
     * @internal
     *
     * @param list<ActorRef|null>|null $senders
     *
     * @param-out list<ActorRef|null> $senders
     *
     * @return list<mixed>
     */
    public function peek(int $max, ?array &$senders): array
    {
        $this->reclaim();
        if ($this->head === 0 && \count($this->messages) <= $max) {
            $senders = $this->senders; // shared until either side changes: no copy in the common case

            return $this->messages;
        }
        $senders = \array_slice($this->senders, $this->head, $max);

        return \array_slice($this->messages, $this->head, $max);
    }

    /**
     * Frees what has been taken: at once when everything was, otherwise once the taken part is
     * at least as long as what remains (so that compaction costs O(1) per message overall).
     */
    public function reclaim(): void
    {
        $head = $this->head;
        if ($head === 0) {
            return;
        }
        $count = \count($this->messages);
        if ($head === $count) {
            $this->messages = $this->senders = [];
            $this->head = 0;
        } elseif ($head >= 64 && 2 * $head >= $count) {
            $this->messages = \array_slice($this->messages, $head);
            $this->senders = \array_slice($this->senders, $head);
            $this->head = 0;
        }
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
        $count = \count($this->messages);
        for ($i = $this->head; $i < $count; ++$i) {
            $messages[] = $this->messages[$i];
            $senders[] = $this->senders[$i];
        }
        $this->messages = $messages;
        $this->senders = $senders;
        $this->head = 0;
        ++$this->generation;
    }

    /**
     * The message taken last by advancing $head (the one the actor's run loop handles), null when
     * none is.
     *
     * @internal
     */
    public function lastTaken(): mixed
    {
        return $this->messages[$this->head - 1] ?? null;
    }

    /**
     * Its sender.
     *
     * @internal
     */
    public function lastTakenSender(): ?ActorRef
    {
        return $this->senders[$this->head - 1] ?? null;
    }

    public function count(): int
    {
        return \count($this->messages) - $this->head;
    }

    public function isEmpty(): bool
    {
        return $this->head === \count($this->messages);
    }

    /**
     * Empties the mailbox and returns what it held, oldest first.
     *
     * @return list<array{mixed, ActorRef|null}>
     */
    public function drain(): array
    {
        $entries = [];
        $count = \count($this->messages);
        for ($i = $this->head; $i < $count; ++$i) {
            $entries[] = [$this->messages[$i], $this->senders[$i]];
        }
        $this->messages = $this->senders = [];
        $this->head = 0;
        ++$this->generation;

        return $entries;
    }

    private function replaceOldest(mixed $message, ?ActorRef $sender): EnqueueResult
    {
        $this->dequeue(); // leaves the oldest in $this->message and $this->sender
        $this->append($message, $sender);

        return EnqueueResult::AcceptedDroppingOldest;
    }
}
