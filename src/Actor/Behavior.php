<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Actor\Signal\Signal;

/**
 * What an actor does with the next message. Behaviors are immutable and can be shared by many
 * actors; the state of a stateful behavior lives in the actor, not in the Behavior.
 *
 * A message handler returns the next behavior:
 * - null or Behavior::same(): keep the current one,
 * - another Behavior: become it,
 * - Behavior::stopped(): stop this actor,
 * - Behavior::unhandled(): the message was not for us (published as UnhandledMessage).
 * A stateful handler returns the next state instead (any value that is not a Behavior), or one of
 * the behaviors above; returning the state unchanged costs nothing.
 */
final class Behavior
{
    private static ?self $same = null;
    private static ?self $stopped = null;
    private static ?self $unhandled = null;

    /**
     * @param \Closure|null $handler   message handler (Receive, Stateful) or factory (Setup)
     * @param \Closure|null $onSignal  fn(Signal $signal, ActorContext $ctx): ?Behavior
     */
    private function __construct(
        public readonly BehaviorKind $kind,
        public readonly ?\Closure $handler = null,
        public readonly mixed $state = null,
        public readonly ?\Closure $onSignal = null,
    ) {}

    /**
     * A stateless behavior: $handler(mixed $message, ActorContext $ctx): ?Behavior.
     */
    public static function receive(\Closure $handler): self
    {
        return new self(BehaviorKind::Receive, $handler);
    }

    /**
     * A stateful behavior with an immutable state value:
     * $handler(mixed $state, mixed $message, ActorContext $ctx) returns the next state or a Behavior.
     */
    public static function withState(mixed $initial, \Closure $handler): self
    {
        return new self(BehaviorKind::Stateful, $handler, $initial);
    }

    /**
     * Runs $factory(ActorContext $ctx): Behavior when the actor starts, and again on each restart:
     * the place to spawn children, start timers or open resources.
     */
    public static function setup(\Closure $factory): self
    {
        return new self(BehaviorKind::Setup, $factory);
    }

    public static function same(): self
    {
        return self::$same ??= new self(BehaviorKind::Same);
    }

    public static function stopped(): self
    {
        return self::$stopped ??= new self(BehaviorKind::Stopped);
    }

    public static function unhandled(): self
    {
        return self::$unhandled ??= new self(BehaviorKind::Unhandled);
    }

    /**
     * A behavior that handles no message (each one is published as unhandled).
     */
    public static function empty(): self
    {
        return new self(BehaviorKind::Receive, static fn(): self => self::unhandled());
    }

    /**
     * A behavior that takes every message and does nothing with it.
     */
    public static function ignore(): self
    {
        return new self(BehaviorKind::Receive, static fn(): ?self => null);
    }

    /**
     * The same behavior, with $handler(Signal $signal, ActorContext $ctx): ?Behavior receiving
     * the lifecycle signals (PreStart, PostStop, PreRestart, PostRestart).
     *
     * @param \Closure(Signal, ActorContext): (Behavior|null|void) $handler
     */
    public function onSignal(\Closure $handler): self
    {
        if ($this->kind !== BehaviorKind::Receive && $this->kind !== BehaviorKind::Stateful) {
            throw new \LogicException('Only receive() and withState() behaviors take a signal handler; put it on the behavior that setup() returns.');
        }

        return new self($this->kind, $this->handler, $this->state, $handler);
    }
}
