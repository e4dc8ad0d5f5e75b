<?php

declare(strict_types=1);

namespace Nexus\Worker\Transport;

use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Io\Connection;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Worker\Codec\MessageCodec;
use Psr\Log\LoggerInterface;

/**
 * What the links (PeerLink, InboundLink) need from the process they serve, and all they know of
 * it: where a peer is, who this process is, the codec, and where decoded batches and undelivered
 * messages go. The worker mesh implements it; the links never see actors, reply addresses,
 * watches or entities.
 *
 * Peers are numbered: a slot of the pool or cluster (>= 0), or one of the negative numbers the
 * host gives the processes of its own slot during a reload.
 */
interface LinkHost
{
    public function loop(): Loop;

    public function logger(): LoggerInterface;

    public function codec(): MessageCodec;

    public function handshake(): Handshake;

    /**
     * Seconds a message waits for an unreachable peer (or a full mailbox) before it is a dead letter.
     */
    public function undeliveredTimeout(): float;

    /**
     * This process's number, as it proves it in a handshake.
     */
    public function localId(): int;

    /**
     * The identity this process proves in a handshake: as the client, in $role ("peer", or its
     * role in a reload), or as the server (null).
     */
    public function identity(?string $role = null): string;

    /**
     * Opens a connection to $peer over the transport that reaches it; fails when it cannot be
     * reached (the link retries, and its messages become dead letters after undeliveredTimeout).
     *
     * @return Future<Connection>
     */
    public function dial(int $peer, int $writeHighWaterMark): Future;

    /**
     * Whether the server that answered a link to $peer as $serverId is the one meant: $peer
     * itself, or for the other process of a reload one of this slot's worker number (a node
     * that rejoined as a new incarnation replaces its workers with new slot numbers).
     */
    public function accepts(int $peer, int $serverId): bool;

    /**
     * Whether a client that claims to be $role $id may link here: returns how a sender of this
     * process's own number in its batches is to be addressed (see deliverBatch()), or throws.
     *
     * @throws \Nexus\Worker\Exception\FrameException saying why it is refused
     */
    public function admit(string $role, int $id): int;

    /**
     * Delivers a decoded batch from position $from on; returns the position reached (the end, or
     * the first message that must wait). With $force such a message is delivered or becomes a
     * dead letter.
     *
     * @param list<mixed> $batch laid out as BatchLayout says
     */
    public function deliverBatch(array $batch, int $from, int $selfAlias, bool $force = false): int;

    /**
     * Messages for $peer that left but were not confirmed, or never could leave: dead letters
     * with $reason, and asks among them fail at once.
     *
     * @param list<mixed> $batch
     */
    public function undeliverable(array $batch, int $peer, DeadLetterReason $reason): void;

    /**
     * The link to $peer broke, or $peer stayed unreachable.
     */
    public function peerLost(int $peer): void;

    /**
     * A link closed: a host that is stopping checks whether everything has drained.
     */
    public function linkClosed(): void;

    /**
     * An inbound link read a batch of $bytes (frame header included) from $peer: counted for
     * metrics, read at scrape time.
     */
    public function received(int $peer, int $bytes): void;
}
