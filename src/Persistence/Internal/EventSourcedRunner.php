<?php

declare(strict_types=1);

namespace Nexus\Persistence\Internal;

use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Persistence\Effect;
use Nexus\Persistence\EventSourcedBehavior;
use Nexus\Persistence\Exception\EventsMissingException;
use Nexus\Persistence\Exception\PayloadDecodingException;
use Nexus\Persistence\Exception\PayloadEncodingException;
use Nexus\Persistence\Exception\PersistenceException;
use Nexus\Persistence\Exception\TooManyEventsException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\JournalHead;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Persistence\Store\SnapshotRecord;
use Nexus\Runtime\Future;

/**
 * One incarnation of an event-sourced actor (see EventSourcedBehavior): recovery from a snapshot
 * and the events after it, page by page; commands, their events and the snapshots they trigger.
 *
 * The writer epoch of an incarnation is one above the epoch of the last event it recovered, and at
 * least the revision of the cluster view it was placed under (ActorContext::placementEpoch()), so
 * the journal refuses an older incarnation's write once a newer one has written.
 *
 * @internal
 */
final class EventSourcedRunner extends PersistentRunner
{
    /** Events the first page of a recovery asks for (at most PersistenceSettings::$recoveryPageSize). */
    private const FIRST_PAGE = 100;

    /** The highest sequence number written (or recovered). */
    private int $sequenceNr = 0;
    private int $epoch = 1;
    /** During recovery: the epoch of the last event read, and whether any was. */
    private int $lastEpoch = 0;
    private int $replayed = 0;
    private int $snapshotsSkipped = 0;
    /** The state before the events of the write in flight, and how many there are. */
    private mixed $stateBefore = null;
    private int $pendingEvents = 0;
    private ?object $lastEvent = null;

    public function __construct(
        private readonly EventSourcedBehavior $definition,
        ActorContext $ctx,
    ) {
        parent::__construct(
            $definition->persistence,
            $ctx,
            $definition->persistenceId,
            $definition->emptyState,
            $definition->signalHandler,
            $definition->backoff,
            $definition->escalate,
        );
    }

    protected function recover(): void
    {
        $this->sequenceNr = 0;
        $this->lastEpoch = 0;
        $this->replayed = 0;
        $this->snapshotsSkipped = 0;
        if ($this->definition->snapshotsEnabled()) {
            $this->loadSnapshot(\PHP_INT_MAX);
        } else {
            $this->replay(1);
        }
    }

    protected function callCommandHandler(mixed $command): mixed
    {
        return ($this->definition->commandHandler)($this->state, $command, $this->ctx);
    }

    protected function persist(Effect $effect, mixed $command, ?ActorRef $sender): void
    {
        $events = $effect->values;
        $count = \count($events);
        $settings = $this->persistence->settings;
        if ($count > $settings->maxEventsPerPersist) {
            $this->fail($command, $sender, new TooManyEventsException(\sprintf(
                'A command to %s persisted %d events, more than the %d allowed (PersistenceSettings::$maxEventsPerPersist); nothing was written.',
                $this->persistenceId,
                $count,
                $settings->maxEventsPerPersist,
            )));

            return;
        }
        $types = $this->persistence->types;
        $definition = $this->definition;
        $tagger = $definition->tagger;
        $payloads = $tags = [];
        try {
            if ($count === 1 && $tagger === null) {
                $payloads = [$types->encodeEvent($events[0])];
            } else {
                foreach ($events as $event) {
                    $payloads[] = $types->encodeEvent($event);
                    if ($tagger !== null) {
                        \assert(\is_object($event));
                        $tags[] = self::tags($tagger($event));
                    }
                }
            }
        } catch (PersistenceException $e) {
            $this->fail($command, $sender, $e);

            return;
        }
        $handler = $definition->eventHandler;
        try {
            if ($count === 1) {
                $next = $handler($this->state, $events[0]);
            } else {
                $next = $this->state;
                foreach ($events as $event) {
                    $next = $handler($next, $event);
                }
            }
        } catch (\Throwable $e) {
            $this->handlerFailed($e, $command, $sender);

            throw $e;
        }
        $write = new AtomicWrite($this->persistenceId, $this->sequenceNr + 1, $this->epoch, $payloads, $tagger === null ? [] : $tags);
        $refused = $this->persistence->groupCommit->append($write, $this);
        if ($refused !== null) {
            $this->fail($command, $sender, $refused);

            return;
        }
        $this->stateBefore = $this->state;
        $this->state = $next;
        $this->pendingEvents = $count;
        $last = $events[$count - 1];
        $this->lastEvent = \is_object($last) ? $last : null;
        $this->writing($effect, $command, $sender);
    }

    protected function committed(): void
    {
        $from = $this->sequenceNr;
        $this->sequenceNr += $this->pendingEvents;
        $this->stateBefore = null;
        $definition = $this->definition;
        if (($definition->snapshotEvery === 0 && $definition->snapshotWhen === null) || $this->lastEvent === null) {
            return;
        }
        $every = $definition->snapshotEvery;
        $due = $every > 0 && intdiv($this->sequenceNr, $every) > intdiv($from, $every);
        if (!$due && $definition->snapshotWhen !== null) {
            $due = (bool) ($definition->snapshotWhen)($this->state, $this->lastEvent, $this->sequenceNr);
        }
        if ($due) {
            $this->snapshot();
        }
    }

    protected function rolledBack(): void
    {
        $this->state = $this->stateBefore;
        $this->stateBefore = null;
    }

    private function snapshot(): void
    {
        try {
            $payload = $this->persistence->types->encode($this->state);
        } catch (PersistenceException $e) {
            $this->ctx->log()->warning('No snapshot of {id}: {error}', ['id' => $this->persistenceId, 'error' => $e->getMessage()]);

            return;
        }
        $store = $this->persistence->store;
        $id = $this->persistenceId;
        $deleteEvents = $this->definition->deleteEventsOnSnapshot;
        $this->persistence->groupCommit->saveSnapshot(
            new SnapshotRecord($id, $this->sequenceNr, $payload),
            $this->definition->snapshotKeep,
            $deleteEvents ? static function (int $oldestKept) use ($store, $id): void {
                $store->deleteEvents($id, $oldestKept)->ignore();
            } : null,
        );
    }

    private function loadSnapshot(int $maxSequenceNr): void
    {
        $this->whenSettled($this->persistence->store->loadSnapshot($this->persistenceId, $maxSequenceNr), function (?\Throwable $error, mixed $snapshot): void {
            if ($error !== null) {
                $this->recoveryFailed($error);

                return;
            }
            if (!$snapshot instanceof SnapshotRecord) {
                $this->replay(1);

                return;
            }
            $payload = $snapshot->state;
            try {
                $this->state = $this->persistence->types->decode($payload->name, $payload->version, $payload->format, $payload->data);
            } catch (PayloadDecodingException $e) {
                // A snapshot is a shortcut: one that no longer decodes is passed over.
                ++$this->snapshotsSkipped;
                $this->ctx->log()->warning('The snapshot of {id} at {seq} no longer decodes ({error}); recovering from an older one or from the events.', [
                    'id' => $this->persistenceId,
                    'seq' => $snapshot->sequenceNr,
                    'error' => $e->getMessage(),
                ]);
                if ($this->snapshotsSkipped < $this->definition->snapshotKeep) {
                    $this->loadSnapshot($snapshot->sequenceNr - 1);
                } else {
                    $this->replay(1);
                }

                return;
            }
            $this->sequenceNr = $snapshot->sequenceNr;
            $this->replay($snapshot->sequenceNr + 1);
        });
    }

    /**
     * Reads the page of events from $from; the first page of a recovery is handled on the same
     * turn when the store answers at once, each later one on a turn of its own.
     */
    private function replay(int $from): void
    {
        // Most histories are short: the first page asks for a few events (so that the reads of
        // many actors recovering at once fit in few statements), the next ones for full pages.
        $size = min(self::FIRST_PAGE, $this->persistence->settings->recoveryPageSize);
        $this->handlePage($this->read($from, $size), $from, $size, false);
    }

    /**
     * @return Future<list<PersistedEvent>>
     */
    private function read(int $from, int $size): Future
    {
        return $this->persistence->store->readEvents($this->persistenceId, $from, \PHP_INT_MAX, $size);
    }

    /**
     * @param Future<list<PersistedEvent>> $read
     */
    private function handlePage(Future $read, int $from, int $size, bool $yield): void
    {
        $this->whenSettled($read, function (?\Throwable $error, mixed $events) use ($from, $size): void {
            if ($error !== null || !\is_array($events)) {
                $this->recoveryFailed($error ?? new \RuntimeException('The journal gave no events.'));

                return;
            }
            $this->page($events, $from, $size);
        }, $yield);
    }

    /**
     * @param array<mixed> $events
     */
    private function page(array $events, int $from, int $size): void
    {
        $types = $this->persistence->types;
        $handler = $this->definition->eventHandler;
        $state = $this->state;
        $expected = $from;
        // A full page: the next one is asked for now, so that the store reads it while this one
        // is applied (at most two pages in memory).
        $full = \count($events) >= $size;
        $last = $full ? $events[\count($events) - 1] : null;
        $pageSize = $this->persistence->settings->recoveryPageSize;
        $next = $last instanceof PersistedEvent ? $this->read($last->sequenceNr + 1, $pageSize) : null;
        try {
            foreach ($events as $event) {
                \assert($event instanceof PersistedEvent);
                if ($event->sequenceNr !== $expected) {
                    throw new EventsMissingException(\sprintf(
                        'The journal of %s has no event %d (the next one is %d): events were deleted without a snapshot that covers them, so its state cannot be rebuilt.',
                        $this->persistenceId,
                        $expected,
                        $event->sequenceNr,
                    ));
                }
                $state = $handler($state, $types->decodeEvent($event->name, $event->version, $event->format, $event->data));
                ++$expected;
                $this->lastEpoch = $event->writerEpoch;
            }
        } catch (\Throwable $e) {
            $next?->ignore();
            $this->recoveryFailed($e);

            return;
        }
        $this->state = $state;
        $this->sequenceNr = $expected - 1;
        $this->replayed += \count($events);
        if ($next !== null) {
            $this->handlePage($next, $expected, $pageSize, true);

            return;
        }
        if ($this->replayed > 0) {
            $this->epoch = max($this->lastEpoch + 1, $this->ctx->placementEpoch());
            $this->recovered($this->sequenceNr);

            return;
        }
        // Nothing after the snapshot (or nothing at all): the head says which epoch comes next,
        // and whether events are missing (all deleted with no snapshot to stand for them).
        $this->whenSettled($this->persistence->store->highestSequenceNr($this->persistenceId), function (?\Throwable $error, mixed $head): void {
            if (!$head instanceof JournalHead) {
                $this->recoveryFailed($error ?? new \RuntimeException('The journal gave no head.'));

                return;
            }
            if ($head->sequenceNr > $this->sequenceNr) {
                $this->recoveryFailed(new EventsMissingException(\sprintf(
                    'The journal of %s goes up to %d but its events up to there were deleted and no snapshot covers them (%s); its state cannot be rebuilt.',
                    $this->persistenceId,
                    $head->sequenceNr,
                    $this->sequenceNr === 0 ? 'none was usable' : "the latest usable is at {$this->sequenceNr}",
                )));

                return;
            }
            $this->epoch = max($head->writerEpoch + 1, $this->ctx->placementEpoch());
            $this->recovered($this->sequenceNr);
        });
    }

    /**
     * @return list<string>
     */
    private static function tags(mixed $tags): array
    {
        if (!\is_array($tags)) {
            throw new PayloadEncodingException('A tagger must return a list of strings, got ' . get_debug_type($tags) . '.');
        }
        $clean = [];
        foreach ($tags as $tag) {
            if (!\is_string($tag) || $tag === '' || \strlen($tag) > 255) {
                throw new PayloadEncodingException('A tag must be a string of 1 to 255 bytes, got ' . get_debug_type($tag) . '.');
            }
            $clean[$tag] = $tag;
        }

        return array_values($clean);
    }
}
