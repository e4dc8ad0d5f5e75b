<?php

declare(strict_types=1);

namespace Nexus\Persistence;

use Nexus\Actor\ActorContext;

/**
 * What a persistent actor's command handler returns: what to store, and what to do once it is
 * stored. Effects are immutable; each then*() returns a new one.
 *
 *     return Effect::persist(new ItemAdded($sku))
 *         ->thenReply(fn(Cart $cart): int => $cart->count())
 *         ->thenRun(fn(Cart $cart, ActorContext $ctx) => $ctx->log()->info('added'));
 *
 * The side effects run in order after the events are durable (committed by the store), with the
 * state they produced; for the other kinds they run at once. thenReply() answers the sender of
 * the command, also after the write. If the write fails, no side effect runs and the sender gets
 * a CommandFailed instead.
 *
 * For an event-sourced actor persist() takes one or more events (objects of registered classes);
 * for a durable-state actor exactly one value: the new state.
 */
final class Effect
{
    public const RUN = 0;
    public const REPLY = 1;
    public const STOP = 2;
    public const UNSTASH_ALL = 3;

    /**
     * @param list<mixed>                      $values      events, or the new state
     * @param list<array{int, mixed}>          $sideEffects (kind, closure or reply value)
     */
    private function __construct(
        public readonly EffectKind $kind,
        public readonly array $values = [],
        public readonly array $sideEffects = [],
    ) {}

    public static function persist(mixed ...$values): self
    {
        if ($values === []) {
            return new self(EffectKind::None);
        }

        return new self(EffectKind::Persist, array_values($values));
    }

    public static function none(): self
    {
        return new self(EffectKind::None);
    }

    /**
     * The command is not for this actor: it is published as a dead letter (reason Unhandled).
     */
    public static function unhandled(): self
    {
        return new self(EffectKind::Unhandled);
    }

    /**
     * Puts the command aside; thenUnstashAll() of a later effect brings every stashed command
     * back, oldest first. Stashed commands are also offered again after each write: return
     * Effect::stash() again while the actor is not ready for them.
     */
    public static function stash(): self
    {
        return new self(EffectKind::Stash);
    }

    public static function stop(): self
    {
        return new self(EffectKind::Stop);
    }

    /**
     * Answers the sender of the command with $message, storing nothing.
     */
    public static function reply(mixed $message): self
    {
        return new self(EffectKind::None, [], [[self::REPLY, $message]]);
    }

    /**
     * @param \Closure $callback fn(State $state, ActorContext $ctx): void
     */
    public function thenRun(\Closure $callback): self
    {
        $sideEffects = $this->sideEffects;
        $sideEffects[] = [self::RUN, $callback];

        return new self($this->kind, $this->values, $sideEffects);
    }

    /**
     * Answers the sender of the command with what $reply returns for the state (or with $reply
     * itself when it is not a closure).
     */
    public function thenReply(mixed $reply): self
    {
        $sideEffects = $this->sideEffects;
        $sideEffects[] = [self::REPLY, $reply];

        return new self($this->kind, $this->values, $sideEffects);
    }

    public function thenStop(): self
    {
        $sideEffects = $this->sideEffects;
        $sideEffects[] = [self::STOP, null];

        return new self($this->kind, $this->values, $sideEffects);
    }

    public function thenUnstashAll(): self
    {
        $sideEffects = $this->sideEffects;
        $sideEffects[] = [self::UNSTASH_ALL, null];

        return new self($this->kind, $this->values, $sideEffects);
    }
}
