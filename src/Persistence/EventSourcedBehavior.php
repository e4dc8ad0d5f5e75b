<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Actor\ActorContext;
use Nexus\Actor\Behavior;
use Nexus\Actor\Props;
use Nexus\Actor\Signal\Signal;
use Nexus\Actor\Supervision\Backoff;
use Nexus\Persistence\Internal\EventSourcedRunner;

/**
 * An event-sourced actor: a persistence id, an empty state, a command handler
 * (state, command, ctx) -> Effect and an event handler (state, event) -> state. Its state is
 * never stored; its events are, and replaying them rebuilds it.
 *
 * Life of an actor made from behavior():
 * - Recovery: the latest usable snapshot (when snapshots are on; one that no longer decodes is
 *   skipped for an older one, and at worst every event is replayed), then the events after it,
 *   page by page. Commands that arrive meanwhile are stashed. RecoveryCompleted (or
 *   RecoveryFailed) goes to the signal handler.
 * - Commands: the command handler's Effect. Persisted events are applied to the state at once
 *   and written through the process's group commit; until the write commits, new commands are
 *   stashed; then the side effects run and the stash is unstashed.
 * - A store failure fails the command to its sender (CommandFailed) and restarts the actor with
 *   backoff: the state is dropped and recovered from the store. withBackoff(null) hands the
 *   failure to the parent's supervisor instead.
 * - A ConcurrentWriteException (another activation of the id wrote first) stops the actor; its
 *   pending commands fail with it.
 *
 * The Behavior is an ordinary one: spawn it, or return it from an entity factory
 * (Workers::kind()) as it is.
 */
final class EventSourcedBehavior
{
    /**
     * @param \Closure                                   $commandHandler fn(State $state, mixed $command, ActorContext $ctx): Effect
     * @param \Closure                                   $eventHandler   fn(State $state, object $event): State
     * @param \Closure|null                              $tagger         fn(object $event): list<string>
     * @param \Closure|null                              $snapshotWhen   fn(State $state, object $event, int $sequenceNr): bool
     * @param (\Closure(Signal, ActorContext): void)|null $signalHandler
     *
     * @internal use Persistence::eventSourced()
     */
    public function __construct(
        public readonly Persistence $persistence,
        public readonly string $persistenceId,
        public readonly mixed $emptyState,
        public readonly \Closure $commandHandler,
        public readonly \Closure $eventHandler,
        public readonly ?\Closure $tagger = null,
        public readonly int $snapshotEvery = 0,
        public readonly int $snapshotKeep = 2,
        public readonly ?\Closure $snapshotWhen = null,
        public readonly bool $deleteEventsOnSnapshot = false,
        public readonly ?\Closure $signalHandler = null,
        public readonly ?Backoff $backoff = null,
        public readonly bool $escalate = false,
    ) {}

    /**
     * Tags each event (for eventsByTag() and projections).
     *
     * @param \Closure $tagger fn(object $event): list<string>
     */
    public function withTagger(\Closure $tagger): self
    {
        return new self($this->persistence, $this->persistenceId, $this->emptyState, $this->commandHandler, $this->eventHandler, $tagger, $this->snapshotEvery, $this->snapshotKeep, $this->snapshotWhen, $this->deleteEventsOnSnapshot, $this->signalHandler, $this->backoff, $this->escalate);
    }

    /**
     * Snapshots the state every $every events (0: never by count) and/or when $when(state, last
     * event, sequence number) says so, keeping the $keep latest. With $deleteEvents the events
     * before the oldest kept snapshot are deleted.
     *
     * @param \Closure|null $when fn(State $state, object $event, int $sequenceNr): bool
     */
    public function withSnapshots(int $every = 0, int $keep = 2, ?\Closure $when = null, bool $deleteEvents = false): self
    {
        if ($every < 0 || $keep < 1 || ($every === 0 && $when === null)) {
            throw new \InvalidArgumentException("Snapshots need every >= 1 or a predicate, and keep >= 1; got every {$every}, keep {$keep}.");
        }

        return new self($this->persistence, $this->persistenceId, $this->emptyState, $this->commandHandler, $this->eventHandler, $this->tagger, $every, $keep, $when, $deleteEvents, $this->signalHandler, $this->backoff, $this->escalate);
    }

    /**
     * $handler(Signal, ActorContext) receives RecoveryCompleted, RecoveryFailed and the actor's
     * lifecycle signals (PreStart, PostStop, PreRestart, PostRestart).
     *
     * @param \Closure(Signal, ActorContext): void $handler
     */
    public function onSignal(\Closure $handler): self
    {
        return new self($this->persistence, $this->persistenceId, $this->emptyState, $this->commandHandler, $this->eventHandler, $this->tagger, $this->snapshotEvery, $this->snapshotKeep, $this->snapshotWhen, $this->deleteEventsOnSnapshot, $handler, $this->backoff, $this->escalate);
    }

    /**
     * How the actor waits before it recovers again after a store failure (default:
     * PersistenceSettings::$backoff); null hands the failure to the parent's supervisor instead
     * (the actor fails with the StoreUnavailableException).
     */
    public function withBackoff(?Backoff $backoff): self
    {
        return new self($this->persistence, $this->persistenceId, $this->emptyState, $this->commandHandler, $this->eventHandler, $this->tagger, $this->snapshotEvery, $this->snapshotKeep, $this->snapshotWhen, $this->deleteEventsOnSnapshot, $this->signalHandler, $backoff, $backoff === null);
    }

    public function snapshotsEnabled(): bool
    {
        return $this->snapshotEvery > 0 || $this->snapshotWhen !== null;
    }

    public function behavior(): Behavior
    {
        $definition = $this;

        return Behavior::setup(static function (ActorContext $ctx) use ($definition): Behavior {
            $runner = new EventSourcedRunner($definition, $ctx);
            $runner->start();

            return Behavior::receive($runner->onMessage(...))->onSignal($runner->onSignal(...));
        });
    }

    /**
     * Props whose stash holds what PersistenceSettings::$stashCapacity allows.
     */
    public function props(): Props
    {
        return Props::fromBehavior($this->behavior())->withStashCapacity($this->persistence->settings->stashCapacity);
    }
}
