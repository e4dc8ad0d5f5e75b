<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Exception\PayloadEncodingException;

/**
 * Wording and checks the stores share, so that a refusal reads the same whichever store made it.
 *
 * @internal
 */
final class StoreSupport
{
    /** @var array<string, true> logical names known to be text (at most 10,000 kept) */
    private static array $names = [];

    public static function conflict(AtomicWrite $write, int $highest, int $storedEpoch): ConcurrentWriteException
    {
        if ($write->firstSequenceNr !== $highest + 1) {
            return new ConcurrentWriteException(sprintf(
                'Events %d.. of %s were not written: the journal holds events up to %d, so another writer got there first (or this one is behind). This writer must stop; a new activation recovers the current history.',
                $write->firstSequenceNr,
                $write->persistenceId,
                $highest,
            ));
        }

        return new ConcurrentWriteException(sprintf(
            'Events %d.. of %s were not written: a newer writer (epoch %d) has written to it, this one has epoch %d. This writer must stop; a new activation recovers the current history.',
            $write->firstSequenceNr,
            $write->persistenceId,
            $storedEpoch,
            $write->writerEpoch,
        ));
    }

    public static function stateConflict(StateRecord $state, int $current): ConcurrentWriteException
    {
        return new ConcurrentWriteException(sprintf(
            'The state of %s is at revision %d, not %d: another writer changed it. This writer must stop; a new activation reads the current state.',
            $state->persistenceId,
            $current,
            $state->revision - 1,
        ));
    }

    /**
     * Why a write holds text no store can keep (a NUL byte), or null when it is fine.
     */
    public static function unstorable(AtomicWrite $write): ?PayloadEncodingException
    {
        foreach ($write->events as $i => $payload) {
            if (!($payload->text || self::isText($payload->data)) || !(isset(self::$names[$payload->name]) || self::isName($payload->name))) {
                return new PayloadEncodingException(sprintf(
                    'Event %d of %s holds a NUL byte or bytes that are not UTF-8, which the stores do not keep in text; encode binary data (base64) or use the PHP format.',
                    $write->firstSequenceNr + $i,
                    $write->persistenceId,
                ));
            }
            if ($write->tags === []) {
                continue;
            }
            foreach ($write->tagsOf($i) as $tag) {
                if (!self::isText($tag)) {
                    return new PayloadEncodingException("A tag of event {$write->persistenceId}/" . ($write->firstSequenceNr + $i) . ' holds a NUL byte or bytes that are not UTF-8; tags are text.');
                }
            }
        }

        return null;
    }

    public static function unstorableState(StateRecord $state): ?PayloadEncodingException
    {
        if (!($state->state->text || self::isText($state->state->data)) || !self::isText($state->state->name)) {
            return new PayloadEncodingException("The state of {$state->persistenceId} holds a NUL byte or bytes that are not UTF-8, which the stores do not keep in text; encode binary data (base64) or use the PHP format.");
        }

        return null;
    }

    /**
     * UTF-8 without NUL bytes: what every store keeps in a text column. A JSON payload is UTF-8
     * already; the check is one pass over its bytes.
     */
    public static function isText(string $value): bool
    {
        return !str_contains($value, "\0") && preg_match('//u', $value) === 1;
    }

    /**
     * Whether $name was checked to be text already (unstorable() checks it otherwise).
     */
    public static function isKnownName(string $name): bool
    {
        return isset(self::$names[$name]);
    }

    /**
     * A logical name already seen is text: names repeat on every event, their check need not.
     */
    private static function isName(string $name): bool
    {
        if (!self::isText($name)) {
            return false;
        }
        if (\count(self::$names) >= 10_000) {
            self::$names = [];
        }
        self::$names[$name] = true;

        return true;
    }

    /**
     * The wall clock in milliseconds since the Unix epoch, as the stores record it.
     */
    public static function now(): int
    {
        return (int) (microtime(true) * 1000);
    }

    /**
     * Tags as one text column (a JSON array, empty when there are none).
     *
     * @param list<string> $tags
     */
    public static function encodeTags(array $tags): string
    {
        return $tags === [] ? '' : json_encode($tags, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES);
    }

    /**
     * @return list<string>
     */
    public static function decodeTags(string $column): array
    {
        if ($column === '') {
            return [];
        }
        $tags = json_decode($column, true, 4);

        return \is_array($tags) ? array_values(array_filter($tags, 'is_string')) : [];
    }
}
