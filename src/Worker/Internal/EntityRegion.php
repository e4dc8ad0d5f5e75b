<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\Actor;
use Nexus\Actor\ActorContext;
use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\ActorStoppingException;
use Nexus\Actor\Message\Kill;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Message\Terminated;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Actor\ReplyAddress;
use Nexus\Actor\Signal\PostRestart;
use Nexus\Actor\Signal\PostStop;
use Nexus\Actor\Signal\PreRestart;
use Nexus\Actor\Signal\PreStart;
use Nexus\Actor\Signal\Signal;
use Nexus\Worker\EntitySettings;
use Nexus\Worker\Exception\EntityLimitException;
use Nexus\Worker\Workers;

/**
 * The entities of one kind on this worker (Workers::kind()): the region starts them, keeps at
 * most EntitySettings::$maxActive alive, passivates them, and sees to it that no message for an
 * entity that stops is lost.
 *
 *  - Each entity is watched by its region and has a receive timeout of the idle timeout whose
 *    message is the region's PoisonPill: an idle entity stops itself, after the messages queued
 *    before the pill, and (a persistent one holds the pill) after a write in flight. The receive
 *    timeout also keeps the time of its last message, which the region reads to find the least
 *    recently used (an entity that sets a receive timeout of its own replaces the region's).
 *  - Starting an entity at the limit sends that pill to the least recently used idle entity (no
 *    message waiting, no write in flight), looking at SCAN_LIMIT candidates at most; when none
 *    of them is idle the start is refused with EntityLimitException.
 *  - What reaches an entity once it has stopped (the messages behind the pill in its mailbox and
 *    stash, and whatever is sent to its old reference) comes to the region instead of dead
 *    letters (DeadLetters::redirectChildrenOf()). Until the region has seen the entity terminate
 *    it keeps them (at most EntitySettings::$maxBuffered per entity; beyond, dead letters) and
 *    hands out the stopped reference, so that whatever is sent meanwhile queues behind them; then
 *    a new incarnation starts (a persistent one recovers) and gets them in order, before
 *    anything sent to it afterwards. Later, a message sent to an old reference goes to the live
 *    incarnation, or starts one.
 *  - While the worker hands its actors off (a reload), no entity starts here: what the region
 *    kept goes to the worker that replaces this one, in order. In a cluster, once a view moved
 *    an entity to another slot, what reaches it here goes there (Placements passes on what it
 *    had queued when it stopped, ahead of the rest).
 *  - An entity started MAX_QUICK_RESTARTS times within QUICK_RESTART_WINDOW seconds for messages
 *    waiting on it (one that stops as soon as it starts) is not started again for them: they
 *    become dead letters, with a warning.
 *
 * @internal
 */
final class EntityRegion
{
    /** Least recently used entities examined for one to passivate at the limit. */
    private const SCAN_LIMIT = 1_000;
    private const MAX_QUICK_RESTARTS = 3;
    private const QUICK_RESTART_WINDOW = 1.0;
    /** The idle timeout of entities that never passivate by time (about 31 years). */
    private const NEVER = 1e9;

    /** @var array<string, Endpoint> live incarnations, and stopped ones not yet seen to terminate */
    private array $active = [];
    /** @var array<string, float> the same ids, least recently used first: when each was last seen active */
    private array $recency = [];
    /** @var array<string, true> asked to passivate to make room, not terminated yet */
    private array $passivating = [];
    /** @var array<string, list<array{mixed, ?ActorRef}>> messages kept for stopped entities */
    private array $buffers = [];
    /** @var array<string, list<float>> when entities were started again for messages kept for them */
    private array $restarts = [];
    private readonly PoisonPill $pill;
    private ?Endpoint $ref = null;
    private string $path = '';
    private bool $stopped = false;

    /**
     * @param \Closure(string): (Props|Behavior) $factory
     */
    public function __construct(
        private readonly Workers $workers,
        private readonly ActorSystem $system,
        public readonly string $kind,
        private readonly \Closure $factory,
        public readonly EntitySettings $settings,
    ) {
        $this->pill = new PoisonPill();
    }

    /**
     * The behavior of the region's own actor (the parent of the entities, /user/<kind>).
     */
    public function behavior(): Behavior
    {
        return Behavior::receive(function (mixed $message): ?Behavior {
            if (!$message instanceof Terminated) {
                return Behavior::unhandled();
            }
            $this->terminated($message->ref);

            return null;
        })->onSignal(function (Signal $signal): null {
            if ($signal instanceof PostStop) {
                $this->regionStopped();
            }

            return null;
        });
    }

    /**
     * Binds the region to its actor, once spawned.
     */
    public function attach(Endpoint $ref): void
    {
        $this->ref = $ref;
        $this->path = $ref->path();
        $this->system->deadLetters->redirectChildrenOf($this->path, $this->redirect(...));
    }

    public function path(): string
    {
        return $this->path;
    }

    /**
     * The reference of entity $id on this worker: its live incarnation, a stopped one whose
     * messages the region keeps, the worker replacing this one during a hand-off, or a new one.
     *
     * @throws EntityLimitException        at the limit with no idle entity to passivate
     * @throws ActorStoppingException      the region is stopping
     */
    public function resolve(string $id): ActorRef
    {
        return $this->active[$id] ?? $this->successor($id) ?? $this->start($id);
    }

    /**
     * resolve() for the worker mesh: null where no local actor takes the message.
     *
     * @throws EntityLimitException
     */
    public function local(string $id): ?Endpoint
    {
        if ($this->stopped) {
            return null;
        }
        $ref = $this->resolve($id);

        return $ref instanceof Endpoint ? $ref : null;
    }

    /**
     * Entities alive on this worker as the region last saw them (those asked to passivate
     * included, until they have stopped).
     */
    public function count(): int
    {
        return \count($this->active);
    }

    private function start(string $id): Endpoint
    {
        $region = $this->ref ?? throw new \LogicException("The {$this->kind} region is not attached to its actor.");
        if ($this->stopping()) {
            throw new ActorStoppingException("The {$this->kind} entities of this worker are stopping: {$id} cannot start here.");
        }
        if (\count($this->active) - \count($this->passivating) >= $this->settings->maxActive) {
            $this->makeRoom($id);
        }
        $ref = $region->spawnChild($this->props($id), $id);
        $region->watch($ref);
        $this->active[$id] = $ref;
        $this->recency[$id] = $this->system->loop->now();

        return $ref;
    }

    /**
     * Passivates the least recently used idle entity, or refuses the start of $for.
     *
     * @throws EntityLimitException
     */
    private function makeRoom(string $for): void
    {
        $now = $this->system->loop->now();
        // The recency order is what the region saw; the entities' own last activity may be newer.
        // An idle entity used since it was last looked at moves to the back (a second chance),
        // and is taken only if no other idle one is found: the least recently used of them.
        $moved = [];
        $victim = null;
        $fallback = null;
        $fallbackAt = \INF;
        $examined = 0;
        foreach ($this->recency as $id => $seen) {
            if (++$examined > self::SCAN_LIMIT) {
                break;
            }
            $entity = $this->active[$id];
            if ($entity->isTerminated()) {
                continue; // stopped by itself: gone once the region sees it
            }
            if (!$entity->isIdle()) {
                $moved[$id] = $now; // busy
                continue;
            }
            $last = $entity->lastActivity();
            if ($last <= $seen) {
                $victim = $id;
                break;
            }
            $moved[$id] = $last;
            if ($last < $fallbackAt) {
                $fallback = $id;
                $fallbackAt = $last;
            }
        }
        foreach ($moved as $id => $seen) {
            unset($this->recency[$id]);
            $this->recency[$id] = $seen;
        }
        $victim ??= $fallback;
        if ($victim === null) {
            throw new EntityLimitException(\sprintf(
                '%s entity %s cannot start: %d are alive on worker %d (EntitySettings::$maxActive) and none of the %d least recently used is idle. Retry later, or raise maxActive.',
                $this->kind,
                $for,
                $this->settings->maxActive,
                $this->workers->id,
                min($examined, self::SCAN_LIMIT),
            ));
        }
        unset($this->recency[$victim]);
        $this->passivating[$victim] = true;
        $this->active[$victim]->deliver($this->pill, null);
    }

    /**
     * The entity's Props: the factory's, made to passivate after the idle timeout.
     */
    private function props(string $id): Props
    {
        $made = ($this->factory)($id);
        $props = $made instanceof Behavior ? Props::fromBehavior($made) : $made;
        $factory = $props->factory;
        // Without an idle timeout, one that never fires: the receive timeout is also what keeps
        // the entity's last activity, for choosing the least recently used at the limit.
        $idle = $this->settings->idleTimeout ?? self::NEVER;
        $pill = $this->pill;
        $entity = Props::fromFactory(static fn(): Behavior => Behavior::setup(static function (ActorContext $ctx) use ($factory, $idle, $pill): Behavior {
            $made = $factory();
            $ctx->setReceiveTimeout($idle, $pill);
            return $made instanceof Actor ? self::actorBehavior($made) : $made;
        }))->withStashCapacity($props->stashCapacity);
        if ($props->mailboxCapacity !== \PHP_INT_MAX) {
            $entity = $entity->withMailbox($props->mailboxCapacity, $props->overflow);
        }

        return $props->supervisor === null ? $entity : $entity->withSupervisor($props->supervisor);
    }

    private static function actorBehavior(Actor $actor): Behavior
    {
        return Behavior::receive($actor->receive(...))->onSignal(static function (Signal $signal, ActorContext $ctx) use ($actor): void {
            match (true) {
                $signal instanceof PreStart => $actor->preStart($ctx),
                $signal instanceof PostStop => $actor->postStop($ctx),
                $signal instanceof PreRestart => $actor->preRestart($signal->reason, $ctx),
                $signal instanceof PostRestart => $actor->postRestart($signal->reason, $ctx),
                default => null,
            };
        });
    }

    /**
     * A message on its way to dead letters because the entity it was for has stopped: whether
     * the region takes it over (see the class comment).
     */
    private function redirect(mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): bool
    {
        if ($message === $this->pill) {
            return true; // the region's own stop, still in a stash: nothing to deliver
        }
        if ($reason !== DeadLetterReason::RecipientTerminated || $message instanceof PoisonPill || $message instanceof Kill || $this->stopping()) {
            return false;
        }
        if ($this->workers->placedElsewhere($recipient)) {
            // A cluster moved the entity to another slot: what it had queued goes there ahead of
            // the rest (Placements); a message sent later through an old reference follows it.
            if ($this->workers->isMovingAway($recipient)) {
                return false;
            }
            $placed = $this->workers->placedRef($recipient);
            $placed?->tell($message, $sender);

            return $placed !== null;
        }
        $id = substr($recipient, \strlen($this->path) + 1);
        $ref = $this->active[$id] ?? null;
        if ($ref === null) {
            // Stopped a while ago: sent through a reference kept from then.
            if ($this->successor($id) !== null) {
                return false; // the hand-off forwards it
            }
            try {
                $ref = $this->start($id);
            } catch (\Throwable $e) {
                $this->warn('A message for {kind} entity {id} could not start it again: {error}', ['id' => $id, 'error' => $e->getMessage()]);

                return false;
            }

            return $this->deliver($ref, $message, $sender);
        }
        if (!$ref->isTerminated()) {
            return $this->deliver($ref, $message, $sender); // sent to an older incarnation
        }
        if (!isset($this->buffers[$id]) && $this->successor($id) !== null) {
            return false; // handing off: forwarded as it comes, in order
        }
        if (\count($this->buffers[$id] ?? []) >= $this->settings->maxBuffered) {
            $this->warn('{kind} entity {id} has stopped and already has {max} messages waiting for its next incarnation: this one is a dead letter.', ['id' => $id, 'max' => $this->settings->maxBuffered]);

            return false;
        }
        $this->buffers[$id][] = [$message, $sender];

        return true;
    }

    /**
     * The region saw an entity terminate: its next incarnation starts for the messages kept.
     */
    private function terminated(ActorRef $dead): void
    {
        $id = substr($dead->path(), \strlen($this->path) + 1);
        if (($this->active[$id] ?? null) !== $dead) {
            return;
        }
        unset($this->active[$id], $this->recency[$id], $this->passivating[$id]);
        $buffer = $this->buffers[$id] ?? [];
        unset($this->buffers[$id]);
        if ($buffer === []) {
            return;
        }
        $successor = $this->successor($id) ?? ($this->workers->placedElsewhere($dead->path()) ? $this->workers->placedRef($dead->path()) : null);
        if ($successor !== null) {
            foreach ($buffer as [$message, $sender]) {
                $successor->tell($message, $sender); // a hand-off, or a cluster that moved it
            }

            return;
        }
        if ($this->quickRestarts($id) >= self::MAX_QUICK_RESTARTS) {
            $this->warn('{kind} entity {id} was started {count} times within {window} s for messages waiting for it and stopped each time: they are dead letters (does it stop as soon as it starts?).', ['id' => $id, 'count' => self::MAX_QUICK_RESTARTS, 'window' => self::QUICK_RESTART_WINDOW]);
            $this->deadLetters($id, $buffer);

            return;
        }
        try {
            $ref = $this->start($id);
        } catch (\Throwable $e) {
            $this->warn('{kind} entity {id} could not start again for the messages waiting for it, which are dead letters: {error}', ['id' => $id, 'error' => $e->getMessage()]);
            $this->deadLetters($id, $buffer);

            return;
        }
        foreach ($buffer as [$message, $sender]) {
            if (!$this->deliver($ref, $message, $sender)) {
                $this->deadLetters($id, [[$message, $sender]]);
            }
        }
    }

    /**
     * Counts a start of $id for waiting messages; how many there were in the window before it.
     */
    private function quickRestarts(string $id): int
    {
        $now = $this->system->loop->now();
        if (\count($this->restarts) > 1_024) {
            foreach ($this->restarts as $other => $times) {
                if ($times[\count($times) - 1] < $now - self::QUICK_RESTART_WINDOW) {
                    unset($this->restarts[$other]);
                }
            }
        }
        $recent = [];
        foreach ($this->restarts[$id] ?? [] as $time) {
            if ($time >= $now - self::QUICK_RESTART_WINDOW) {
                $recent[] = $time;
            }
        }
        $count = \count($recent);
        $recent[] = $now;
        $this->restarts[$id] = $recent;

        return $count;
    }

    /**
     * The region stops (a shutdown, or a hand-off once its entities have stopped): what it kept
     * goes to the worker replacing this one, or becomes dead letters.
     */
    private function regionStopped(): void
    {
        $this->stopped = true;
        if ($this->ref !== null) {
            $this->system->deadLetters->redirectChildrenOf($this->path, null);
        }
        $buffers = $this->buffers;
        $this->buffers = $this->active = $this->recency = $this->passivating = [];
        foreach ($buffers as $id => $buffer) {
            $successor = $this->successor((string) $id);
            if ($successor === null) {
                $this->deadLetters((string) $id, $buffer);

                continue;
            }
            foreach ($buffer as [$message, $sender]) {
                $successor->tell($message, $sender);
            }
        }
    }

    private function deliver(Endpoint $ref, mixed $message, ?ActorRef $sender): bool
    {
        try {
            $ref->deliver($message, $sender);
        } catch (\Throwable $e) {
            $this->warn('A message for {kind} entity {id} could not be delivered: {error}', ['id' => substr($ref->path(), \strlen($this->path) + 1), 'error' => $e->getMessage()]);

            return false;
        }

        return true;
    }

    /**
     * @param list<array{mixed, ?ActorRef}> $messages
     */
    private function deadLetters(string $id, array $messages): void
    {
        $deadLetters = $this->system->deadLetters;
        $path = "{$this->path}/{$id}";
        foreach ($messages as [$message, $sender]) {
            if ($sender instanceof ReplyAddress) {
                $sender->undeliverable(DeadLetterReason::RecipientTerminated, $path);
            }
            $deadLetters->publish($message, $sender, $path, DeadLetterReason::RecipientTerminated);
        }
    }

    private function successor(string $id): ?ActorRef
    {
        return $this->workers->handedOff("{$this->path}/{$id}");
    }

    /**
     * @param array<string, mixed> $context
     */
    private function warn(string $message, array $context): void
    {
        $this->system->logger->warning($message, ['kind' => $this->kind, ...$context]);
    }

    private function stopping(): bool
    {
        return $this->stopped || $this->ref === null || $this->ref->isStopping();
    }
}
