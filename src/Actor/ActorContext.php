<?php

declare(strict_types=1);

namespace Nexus\Actor;

use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * What a running actor can do: passed to every handler and signal handler. Only valid while that
 * actor handles a message; do not keep it for use from elsewhere.
 */
interface ActorContext
{
    public function self(): ActorRef;

    public function path(): string;

    /**
     * The supervisor; null only for the root guardian.
     */
    public function parent(): ?ActorRef;

    public function system(): ActorSystem;

    public function loop(): Loop;

    /**
     * A PSR-3 logger; the actor's path is in the context of everything it logs.
     */
    public function log(): LoggerInterface;

    /**
     * The sender of the message being handled, if it had one.
     */
    public function sender(): ?ActorRef;

    /**
     * The message being handled.
     */
    public function message(): mixed;

    /**
     * Answers the sender of the message being handled (completing its ask, if it asked). Without a
     * sender the reply goes to dead letters.
     */
    public function reply(mixed $message): void;

    /**
     * Passes the message being handled (or, when given, $message instead) on to $to with the
     * original sender, also when there was none.
     */
    public function forward(ActorRef $to, mixed $message = null): void;

    /**
     * Starts a child. A null name makes an anonymous one ($a, $b, ...). Throws
     * ActorNameTakenException when a sibling of that name is still alive.
     */
    public function spawn(Props|Behavior $props, ?string $name = null): ActorRef;

    public function child(string $name): ?ActorRef;

    /**
     * @return array<string, ActorRef> by name, in start order
     */
    public function children(): array;

    /**
     * Stops this actor (no argument) or one of its children, after the current message. The
     * messages still queued go to dead letters.
     */
    public function stop(?ActorRef $ref = null): void;

    /**
     * Delivers Terminated($ref) (or $message, when given) once $ref stops, exactly once, also when
     * it has already stopped.
     */
    public function watch(ActorRef $ref, mixed $message = null): void;

    public function unwatch(ActorRef $ref): void;

    /**
     * Keyed timers that send this actor messages; all are cancelled when it stops or restarts.
     */
    public function timers(): TimerScheduler;

    /**
     * Sends $message (a ReceiveTimeout by default) to this actor when no message arrived for
     * $seconds, and again after each further idle period, until cancelled.
     */
    public function setReceiveTimeout(float $seconds, mixed $message = null): void;

    public function cancelReceiveTimeout(): void;

    /**
     * Runs $callback($ctx) on this actor's turn, as if it were a message queued now (behind those
     * already in the mailbox), with $message and $sender as the message being handled (so that
     * reply() answers $sender). Unlike the rest of the context, this may be called from anywhere
     * and at any time, such as a future's onSettle() or a loop callback: it is how work finished
     * elsewhere comes back to the actor. A bounded mailbox never refuses it. An exception it
     * throws is a failure of the actor, as from a handler. Returns false (and queues nothing) when
     * the actor has terminated; one still queued when the actor stops is dropped.
     *
     * @param \Closure(ActorContext): void $callback
     */
    public function runOnTurn(\Closure $callback, mixed $message = null, ?ActorRef $sender = null): bool;

    /**
     * Whether work finished outside the actor's turns (a loop callback, a future's onSettle())
     * may go on at once instead of through runOnTurn(): the actor is running (not starting,
     * failed, restarting or stopping), no lifecycle message (stop, supervision, watch) waits for
     * it, and none of its turns is under way. Such work must not need the message being handled
     * (sender(), reply(), stash()): outside a turn there is none.
     */
    public function isSteady(): bool;

    /**
     * Puts the message being handled aside until unstashAll(). Throws StashOverflowException when
     * the stash is at its capacity (Props::withStashCapacity()).
     */
    public function stash(): void;

    /**
     * Puts every stashed message back at the head of the mailbox, oldest first.
     */
    public function unstashAll(): void;

    public function stashSize(): int;

    /**
     * While held, a PoisonPill this actor reaches is put in its stash (in order, whatever the
     * stash's capacity) instead of stopping it, so that unstashAll() brings it back after the
     * commands stashed before it. For an actor whose work in flight must end before it stops: a
     * persistent actor holds it while a write is in flight, and a graceful stop (a reload's
     * hand-off) waits for the write. ActorSystem::stop() and a parent's stop still stop it at once.
     */
    public function holdPoisonPill(bool $hold): void;

    /**
     * Replaces the behavior (or, with $discardOld false, pushes it so that unbecome() returns to
     * the current one).
     */
    public function become(Behavior $behavior, bool $discardOld = true): void;

    /**
     * Returns to the behavior that the last become(..., false) pushed aside.
     */
    public function unbecome(): void;

    /**
     * The revision of the cluster's view this actor was placed under (Props::withPlacementEpoch());
     * 0 outside a cluster.
     */
    public function placementEpoch(): int;
}
