<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Actor\Mailbox\Mailbox;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Supervision\SupervisorStrategy;

/**
 * The recipe for an actor: how to create its behavior (again on each restart), its mailbox, how
 * it supervises its own children, how much it may stash, and the epoch it was placed under in a
 * cluster (see withPlacementEpoch()).
 */
final class Props
{
    /** Never handed out, only cloned (see createMailbox()). */
    private ?Mailbox $emptyMailbox = null;
    private bool $mailboxCreated = false;

    /**
     * @param \Closure(): (Behavior|Actor) $factory
     */
    private function __construct(
        public readonly \Closure $factory,
        public readonly int $mailboxCapacity = \PHP_INT_MAX,
        public readonly OverflowPolicy $overflow = OverflowPolicy::DropNewest,
        public readonly ?SupervisorStrategy $supervisor = null,
        public readonly int $stashCapacity = 1000,
        public readonly int $placementEpoch = 0,
        /** What kind of actor this is, for metrics and the dashboard (see withKind()). */
        public readonly ?string $kind = null,
    ) {}

    public static function fromBehavior(Behavior $behavior): self
    {
        return new self(static fn(): Behavior => $behavior);
    }

    /**
     * @param \Closure(): (Behavior|Actor) $factory called at start and on every restart
     */
    public static function fromFactory(\Closure $factory): self
    {
        return new self($factory);
    }

    /**
     * @param class-string<Actor> $class
     */
    public static function fromClass(string $class, mixed ...$arguments): self
    {
        if (!is_subclass_of($class, Actor::class)) {
            throw new \InvalidArgumentException("{$class} must extend " . Actor::class . ' to be used with Props::fromClass().');
        }

        return new self(static fn(): Actor => new $class(...$arguments));
    }

    /**
     * A bounded mailbox; $overflow says what happens to a message that finds it full.
     */
    public function withMailbox(int $capacity, OverflowPolicy $overflow = OverflowPolicy::DropNewest): self
    {
        if ($capacity < 1) {
            throw new \InvalidArgumentException("A mailbox needs a capacity of at least 1, got {$capacity}.");
        }

        return new self($this->factory, $capacity, $overflow, $this->supervisor, $this->stashCapacity, $this->placementEpoch, $this->kind);
    }

    /**
     * How this actor supervises its children.
     */
    public function withSupervisor(SupervisorStrategy $strategy): self
    {
        return new self($this->factory, $this->mailboxCapacity, $this->overflow, $strategy, $this->stashCapacity, $this->placementEpoch, $this->kind);
    }

    public function withStashCapacity(int $capacity): self
    {
        if ($capacity < 0) {
            throw new \InvalidArgumentException("The stash capacity cannot be negative, got {$capacity}.");
        }

        return new self($this->factory, $this->mailboxCapacity, $this->overflow, $this->supervisor, $capacity, $this->placementEpoch, $this->kind);
    }

    /**
     * The revision of the cluster's view this activation was placed under (0 outside a cluster):
     * a persistent actor writes to its journal with at least this epoch, so once it has written,
     * an owner placed under an older view can no longer write (ActorContext::placementEpoch()).
     */
    public function withPlacementEpoch(int $epoch): self
    {
        return new self($this->factory, $this->mailboxCapacity, $this->overflow, $this->supervisor, $this->stashCapacity, $epoch, $this->kind);
    }

    /**
     * Names the kind of actor ('counter', 'order'), the label its metrics and the dashboard use.
     * A kind is a handful of words from code, never an id: every distinct kind is a series.
     * Without one, the kind is the Actor class, or for a behavior the file and line where its
     * handler was written (Counter.php:12).
     */
    public function withKind(string $kind): self
    {
        if ($kind === '' || \strlen($kind) > 100) {
            throw new \InvalidArgumentException("An actor kind is 1 to 100 bytes such as 'counter', got '{$kind}'.");
        }

        return new self($this->factory, $this->mailboxCapacity, $this->overflow, $this->supervisor, $this->stashCapacity, $this->placementEpoch, $kind);
    }

    /**
     * A new, empty mailbox. From the second actor on, a clone of an empty one kept for that
     * (about half the cost of constructing one); Props made for one actor (spawn() of a
     * Behavior) construct theirs.
     *
     * @internal
     */
    public function createMailbox(): Mailbox
    {
        if ($this->emptyMailbox !== null) {
            return clone $this->emptyMailbox;
        }
        if (!$this->mailboxCreated) {
            $this->mailboxCreated = true;

            return new Mailbox($this->mailboxCapacity, $this->overflow);
        }
        $this->emptyMailbox = new Mailbox($this->mailboxCapacity, $this->overflow);

        return clone $this->emptyMailbox;
    }
}
