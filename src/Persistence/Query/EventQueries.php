<?php

declare(strict_types=1);

namespace Nexus\Persistence\Query;

use Nexus\Persistence\Persistence;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;

/**
 * The read side: the events of one actor, or of every actor by tag, as a live stream from a
 * position, in commit order with no event skipped (the stores assign offsets in commit order;
 * see docs/persistence.md on the projection gap problem).
 *
 *     $query = $persistence->queries()->eventsByTag('cart', $offset, function (array $page): void {
 *         foreach ($page as $envelope) { ... }          // return a Future to hold the next page back
 *     });
 */
final class EventQueries
{
    /** @var array<int, array{LiveQuery, ?string, ?string}> running queries: tag, persistence id */
    private array $live = [];

    /**
     * @internal use Persistence::queries()
     */
    public function __construct(
        private readonly Persistence $persistence,
        private readonly int $pageSize = 500,
        private readonly float $pollInterval = 0.5,
    ) {
        if ($pageSize < 1 || !($pollInterval > 0.0)) {
            throw new \InvalidArgumentException("A query needs a page size of at least 1 and a poll interval above 0 s, got {$pageSize} and {$pollInterval}.");
        }
        $persistence->groupCommit->onCommitted(function (array $writes): void {
            $this->committed($writes);
        });
    }

    /**
     * Every event tagged $tag with an offset above $afterOffset, then each one committed later,
     * page by page to $consumer(list<EventEnvelope>): null or a Future to wait for.
     *
     * @param \Closure(list<EventEnvelope>): mixed $consumer
     */
    public function eventsByTag(string $tag, int $afterOffset, \Closure $consumer): LiveQuery
    {
        Persistence::checkId($tag, 'tag');
        $store = $this->persistence->store;

        return $this->start(
            "The query of events tagged '{$tag}'",
            $afterOffset,
            static fn(int $after, int $max): Future => $store->readEventsByTag($tag, $after, $max),
            static fn(PersistedEvent $event): int => $event->offset,
            $consumer,
            $tag,
            null,
        );
    }

    /**
     * Every event of one actor from $fromSequenceNr on, then each one it persists later.
     *
     * @param \Closure(list<EventEnvelope>): mixed $consumer
     */
    public function eventsByPersistenceId(string $persistenceId, int $fromSequenceNr, \Closure $consumer): LiveQuery
    {
        Persistence::checkId($persistenceId);
        $store = $this->persistence->store;

        return $this->start(
            "The query of the events of {$persistenceId}",
            $fromSequenceNr - 1,
            static fn(int $after, int $max): Future => $store->readEvents($persistenceId, $after + 1, \PHP_INT_MAX, $max),
            static fn(PersistedEvent $event): int => $event->sequenceNr,
            $consumer,
            null,
            $persistenceId,
        );
    }

    /**
     * The events tagged $tag stored now after $afterOffset, at most $max: one page, not live.
     *
     * @return Future<list<EventEnvelope>>
     */
    public function currentEventsByTag(string $tag, int $afterOffset, int $max = 500): Future
    {
        /** @var Deferred<list<EventEnvelope>> $deferred */
        $deferred = new Deferred($this->persistence->system->loop);
        $this->persistence->store->readEventsByTag($tag, $afterOffset, $max)->onSettle(function (?\Throwable $error, mixed $events) use ($deferred): void {
            try {
                if ($error !== null || !\is_array($events)) {
                    throw $error ?? new \RuntimeException('The store gave no events.');
                }
                $envelopes = [];
                foreach ($events as $event) {
                    \assert($event instanceof PersistedEvent);
                    $envelopes[] = $this->envelope($event);
                }
                $deferred->resolve($envelopes);
            } catch (\Throwable $e) {
                $deferred->reject($e);
            }
        });

        return $deferred->future();
    }

    /**
     * @param \Closure(int, int): Future<list<PersistedEvent>> $read
     * @param \Closure(PersistedEvent): int                      $advance
     * @param \Closure(list<EventEnvelope>): mixed               $consumer
     */
    private function start(string $description, int $position, \Closure $read, \Closure $advance, \Closure $consumer, ?string $tag, ?string $persistenceId): LiveQuery
    {
        $query = new LiveQuery(
            $this->persistence->system->loop,
            $this->persistence->system->logger,
            $description,
            $position,
            $this->pageSize,
            $this->pollInterval,
            $read,
            $advance,
            $this->envelope(...),
            $consumer,
            function (LiveQuery $query): void {
                unset($this->live[spl_object_id($query)]);
            },
        );
        $this->live[spl_object_id($query)] = [$query, $tag, $persistenceId];

        return $query;
    }

    private function envelope(PersistedEvent $event): EventEnvelope
    {
        return new EventEnvelope(
            $event->persistenceId,
            $event->sequenceNr,
            $event->offset,
            $this->persistence->types->decodeEvent($event->name, $event->version, $event->format, $event->data),
            $event->tags,
            $event->writtenAt,
        );
    }

    /**
     * @param list<AtomicWrite> $writes
     */
    private function committed(array $writes): void
    {
        if ($this->live === []) {
            return;
        }
        $tags = $ids = [];
        foreach ($writes as $write) {
            $ids[$write->persistenceId] = true;
            foreach ($write->tags as $eventTags) {
                foreach ($eventTags as $tag) {
                    $tags[$tag] = true;
                }
            }
        }
        foreach ($this->live as [$query, $tag, $persistenceId]) {
            if (($tag !== null && isset($tags[$tag])) || ($persistenceId !== null && isset($ids[$persistenceId]))) {
                $query->wake();
            }
        }
    }
}
