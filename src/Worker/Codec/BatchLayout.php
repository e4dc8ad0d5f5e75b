<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec;

/**
 * The layout of a batch of messages between workers, and the rare-path helpers that read it
 * (dead letters, splitting an oversized frame, resuming a delivery that had to wait); the hot
 * paths (PeerLink::enqueue(), Mesh::deliverBatch()) read and write it inline.
 *
 * A batch is a flat list: the class table first (see MessageCodec), then for each message its
 * recipient path (a string) and the message; a run of messages from one sender is preceded by
 * that sender once, as its worker (an int, -1 for no sender) and its path (a string). A batch
 * starts with a sender before its first message. Paths are always strings and workers always
 * ints, so an int where a path is due starts a new run: the sender is written once per run
 * instead of once per message (a burst from one actor is one run), which leaves igbinary two
 * values per message to encode and decode instead of four.
 *
 * Reading is lenient with what does not fit (a value that is neither a path nor a sender is
 * skipped), as a batch comes from another process.
 */
final class BatchLayout
{
    /** The position of the first value after the class table. */
    public const FIRST = 1;

    /**
     * A batch of one message.
     *
     * @return list<mixed>
     */
    public static function single(string $path, mixed $message, int $senderWorker, string $senderPath): array
    {
        return [[], $senderWorker, $senderPath, $path, $message];
    }

    /**
     * The messages of $batch from position $from on, as (path, message, sender worker, sender
     * path), in order.
     *
     * @param list<mixed> $batch
     *
     * @return list<array{string, mixed, int, string}>
     */
    public static function messages(array $batch, int $from = self::FIRST): array
    {
        [$senderWorker, $senderPath] = self::senderAt($batch, $from);
        $messages = [];
        $count = \count($batch);
        for ($i = $from; $i + 1 < $count; $i += 2) {
            $value = $batch[$i];
            if (\is_string($value)) {
                $messages[] = [$value, $batch[$i + 1], $senderWorker, $senderPath];
            } elseif (\is_int($value) && \is_string($batch[$i + 1])) {
                $senderWorker = $value;
                $senderPath = $batch[$i + 1];
            } else {
                --$i; // not a pair this layout writes: skip one value
            }
        }

        return $messages;
    }

    /**
     * @param list<mixed> $batch
     */
    public static function count(array $batch): int
    {
        return \count(self::messages($batch));
    }

    /**
     * The sender in effect at position $position (the last one written before it), as (worker,
     * path); (-1, '') when none was.
     *
     * @param list<mixed> $batch
     *
     * @return array{int, string}
     */
    public static function senderAt(array $batch, int $position): array
    {
        $senderWorker = -1;
        $senderPath = '';
        for ($i = self::FIRST; $i + 1 < $position; $i += 2) {
            $value = $batch[$i];
            if (\is_int($value) && \is_string($batch[$i + 1])) {
                $senderWorker = $value;
                $senderPath = $batch[$i + 1];
            } elseif (!\is_string($value)) {
                --$i;
            }
        }

        return [$senderWorker, $senderPath];
    }

    /**
     * Builds a batch of the given messages (path, message, sender worker, sender path) behind
     * $table, each sender written once per run.
     *
     * @param list<mixed>                               $table
     * @param list<array{string, mixed, int, string}> $messages
     *
     * @return list<mixed>
     */
    public static function build(array $table, array $messages): array
    {
        $batch = [$table];
        $lastWorker = \PHP_INT_MIN;
        $lastPath = '';
        foreach ($messages as [$path, $message, $senderWorker, $senderPath]) {
            if ($senderWorker !== $lastWorker || $senderPath !== $lastPath) {
                $batch[] = $lastWorker = $senderWorker;
                $batch[] = $lastPath = $senderPath;
            }
            $batch[] = $path;
            $batch[] = $message;
        }

        return $batch;
    }

    /**
     * A batch as workers wrote it before this layout (the class table, then path, message, sender
     * worker, sender path for each message; formats 1 and 2), in this layout. Values that fit no
     * message are skipped, as in messages().
     *
     * @param list<mixed> $former
     *
     * @return list<mixed>
     */
    public static function fromFormer(array $former): array
    {
        $messages = [];
        $count = \count($former);
        for ($i = self::FIRST; $i + 3 < $count; $i += 4) {
            if (\is_string($former[$i]) && \is_int($former[$i + 2]) && \is_string($former[$i + 3])) {
                $messages[] = [$former[$i], $former[$i + 1], $former[$i + 2], $former[$i + 3]];
            }
        }

        return self::build(\is_array($former[0] ?? null) ? array_values($former[0]) : [], $messages);
    }

    /**
     * Splits a batch of two messages or more into two halves, in order (each with the table and
     * its own leading sender); null for a batch of one message or none.
     *
     * @param list<mixed> $batch
     *
     * @return array{list<mixed>, list<mixed>}|null
     */
    public static function split(array $batch): ?array
    {
        $messages = self::messages($batch);
        $count = \count($messages);
        if ($count <= 1) {
            return null;
        }
        $half = intdiv($count, 2);
        $table = \is_array($batch[0] ?? null) ? array_values($batch[0]) : [];

        return [self::build($table, \array_slice($messages, 0, $half)), self::build($table, \array_slice($messages, $half))];
    }
}
