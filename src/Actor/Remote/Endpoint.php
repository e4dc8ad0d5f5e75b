<?php

declare(strict_types=1);

namespace Nexus\Actor\Remote;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Message\PoisonPill;
use Nexus\Actor\Props;

/**
 * The face a local actor shows to a transport (the worker mesh, the links between nodes): what
 * delivering a message from another process, backpressure, death watch and hand-off need, and
 * nothing of the actor's internals. Like Proto.Actor's Process, a remote ref and a local actor are
 * two kinds of recipient behind one send; this is the local kind, as a transport sees it.
 *
 * Get one with ActorSystem::endpoint($path). Every method runs on the actor system's loop and
 * never runs the actor's code: delivery only queues (the actor runs on its own turn), so the state
 * an endpoint reports does not change while a transport delivers a batch.
 */
interface Endpoint extends ActorRef
{
    /**
     * Queues $message from $sender as it is (the sender is not defaulted to the current actor).
     * A terminated actor turns it into a dead letter (RecipientTerminated); a full bounded mailbox
     * applies its overflow policy (MailboxFullException for Reject and a Backpressure mailbox
     * that cannot wait).
     */
    public function deliver(mixed $message, ?ActorRef $sender): void;

    public function isTerminated(): bool;

    /**
     * Stopping or terminated: it starts no new children.
     */
    public function isStopping(): bool;

    /**
     * Messages waiting in its mailbox.
     */
    public function queued(): int;

    /**
     * How many queued messages a transport should stop delivering at: the capacity of a
     * Backpressure mailbox, null for an unbounded mailbox (the transport applies its own
     * high-water mark), \PHP_INT_MAX for a bounded mailbox that settles overflow itself.
     */
    public function deliveryLimit(): ?int;

    /**
     * Running, nothing in its mailbox and not holding its PoisonPill (no write in flight): it can
     * be passivated without waiting for anything.
     */
    public function isIdle(): bool;

    /**
     * When it last handled a message (the loop's clock), as kept by its receive timeout; 0.0 when
     * it has none.
     */
    public function lastActivity(): float;

    /**
     * It watches $target: it gets Terminated once $target has stopped (see ActorContext::watch()).
     */
    public function watch(ActorRef $target): void;

    public function child(string $name): ?Endpoint;

    /**
     * @return list<Endpoint>
     */
    public function children(): array;

    /**
     * Starts a child named $name (see ActorContext::spawn()).
     *
     * @throws \Nexus\Actor\Exception\ActorNameTakenException
     * @throws \Nexus\Actor\Exception\InvalidActorNameException
     * @throws \Nexus\Actor\Exception\ActorStoppingException when it is stopping
     */
    public function spawnChild(Props|Behavior $props, string $name): Endpoint;

    /**
     * Stops it after the message in hand: $pill goes ahead of the messages queued, which become
     * dead letters (RecipientTerminated) once it has stopped. An actor that holds its PoisonPill
     * (a persistent actor with a write in flight) stops once that write is done and the commands
     * it stashed meanwhile are handled.
     */
    public function stopAfterCurrent(PoisonPill $pill): void;

    /**
     * A remote actor it watches has stopped, or its process is gone: it gets Terminated (or its
     * custom watch message), at most once, and only while it still watches.
     */
    public function remoteTerminated(RemoteWatchable $dead): void;
}
