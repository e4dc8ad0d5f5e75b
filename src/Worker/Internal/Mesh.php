<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Message\Traced;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Cluster\View;
use Nexus\Io\Connection;
use Nexus\Io\Exception\ConnectException;
use Nexus\Io\Listener;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Nexus\Worker\Codec\BatchLayout;
use Nexus\Worker\Codec\Internal\HandOffComplete;
use Nexus\Worker\Codec\Internal\MeshControl;
use Nexus\Worker\Codec\Internal\Relayed;
use Nexus\Worker\Codec\Internal\RemoteAskFailed;
use Nexus\Worker\Codec\Internal\RemoteTerminated;
use Nexus\Worker\Codec\Internal\RemoteUnwatch;
use Nexus\Worker\Codec\Internal\RemoteWatch;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Exception\FrameException;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\RemoteActorRef;
use Nexus\Worker\Slots;
use Nexus\Worker\Transport\Handshake;
use Nexus\Worker\Transport\InboundLink;
use Nexus\Worker\Transport\LinkHost;
use Nexus\Worker\Transport\LinkTls;
use Nexus\Worker\Transport\PeerLink;
use Nexus\Worker\Transport\TcpTransport;
use Nexus\Worker\Transport\Transport;
use Nexus\Worker\Transport\UnixTransport;
use Psr\Log\LoggerInterface;

/**
 * This worker's end of the pool's all-to-all links: it sends messages to actors on other workers
 * and delivers what they send here.
 *
 * Each worker listens on a Unix socket in the pool's runtime directory; a link to another worker
 * is opened on first use and carries messages one way, batched per loop turn (PeerLink). Replies
 * to a remote ask come back to a /temp/g<generation>.<n> address that lives only in this mesh
 * (ReplyAddresses).
 *
 * The mesh is the links' host (LinkHost) and delegates each concern to its own class: the reply
 * registry (ReplyAddresses), watches of remote actors (RemoteWatches), entity resolution
 * (LocalRecipients), dead letters (Undelivered), the reload hand-off (HandOff). The links see only
 * LinkHost; local actors are reached through the actor layer's Endpoint.
 *
 * Delivery is at most once, in order per sender and receiver (docs/architecture.md, "Delivery
 * guarantees"). Every message that cannot be delivered becomes a dead letter with its own reason,
 * one at a time: a bad message never sinks the batch it came in, and an ask among them fails at
 * once with that reason.
 *
 * @internal
 */
final class Mesh implements LinkHost
{
    /** The largest message (estimated encoded size) one tell() may send to another worker. */
    public const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
    /** Messages queued in a local mailbox above which a link stops delivering into it (and stops reading). */
    public const MAILBOX_HIGH_WATER = 10_000;
    /** The worker this one replaces during a reload (its socket), as a worker number of this mesh. */
    public const PREDECESSOR = -2;
    /** The worker that replaces this one during a reload, as a worker number of this mesh. */
    public const SUCCESSOR = -3;
    /** How long stop() waits for the links to drain (peers to take their last acknowledgements). */
    public const DRAIN_TIMEOUT = 2.0;
    /** Refs to remote actors kept for reuse at most (the cache is emptied when full). */
    private const REMOTE_REF_CACHE = 4_096;
    /** Seconds a link gets to connect before it tries again. */
    private const CONNECT_TIMEOUT = 1.0;
    /** Seconds between checks of the links to other nodes for acknowledgements overdue. */
    private const ACK_CHECK_EVERY = 1.0;

    /** @var array<int, PeerLink> */
    private array $peers = [];
    /** @var array<string, RemoteActorRef> */
    private array $remoteRefs = [];
    private readonly LocalRecipients $recipients;
    private readonly Transport $unix;
    private readonly TcpTransport $tcp;
    private ?Listener $listener = null;
    /** @var list<Listener> listeners for links from other nodes (TCP) */
    private array $remoteListeners = [];
    /** @var array<int, string> where the slots of other nodes listen (tcp://host:port), by slot */
    private array $remoteAddresses = [];
    /** This worker's slot: (node << 8) | worker, the number it proves in a handshake. */
    public readonly int $id;
    /** Where the named actors and entities of a cluster live (null: a pool on one machine). */
    public ?Placements $placements = null;
    /** @var array<int, true> nodes that left the cluster: messages for them are dead letters at once */
    private array $departed = [];
    /** @var array<int, InboundLink> */
    private array $inbound = [];
    /** @var array<int, int> batches received, by the worker they came from */
    private array $framesReceived = [];
    /** @var array<int, int> their bytes, by the worker they came from */
    private array $bytesReceived = [];
    private string $ownSocket = '';
    private readonly ReplyAddresses $replies;
    private readonly Undelivered $undelivered;
    private readonly RemoteWatches $watches;
    public readonly HandOff $handOff;
    public readonly Handshake $handshake;
    /** @var Deferred<null>|null */
    private ?Deferred $drained = null;
    /** @var \Closure(mixed): ?\Throwable */
    private readonly \Closure $replyFailure;

    /**
     * @param int $worker this worker's number on its node (0 to count-1)
     * @param int $node   this node's number in a cluster (0: a pool without one, see Slots)
     */
    public function __construct(
        public readonly ActorSystem $system,
        public readonly int $worker,
        public readonly int $count,
        private readonly string $runtimeDir,
        #[\SensitiveParameter]
        string $secret,
        private readonly MessageClasses $classes,
        public readonly MessageCodec $codec,
        public readonly float $undeliveredTimeout,
        public readonly int $generation = 1,
        public readonly int $node = 0,
        ?LinkTls $nodeTls = null,
    ) {
        $this->id = Slots::id($node, $worker);
        $this->replies = new ReplyAddresses($system->loop, $system->deadLetters, $this->id, $generation, $this->askTimedOut(...));
        $this->watches = new RemoteWatches();
        $this->recipients = new LocalRecipients($system);
        $this->unix = new UnixTransport();
        $this->tcp = new TcpTransport($nodeTls, $system->logger);
        $this->handOff = new HandOff($this);
        $this->handshake = new Handshake($secret);
        $this->undelivered = new Undelivered($this, $this->replies);
        $this->replyFailure = Undelivered::replyFailure(...);
    }

    /**
     * Starts listening for the other workers' links. The socket is reached through a stable name
     * (worker-<id>.sock, a symlink swapped atomically) so that a replacement worker takes over
     * its slot while the one it replaces still drains; a worker that finds a live predecessor
     * there holds its named actors and entities until that one has handed them off.
     */
    public function start(): void
    {
        $this->ownSocket = \sprintf('%s/worker-%d-%d-%d.sock', $this->runtimeDir, $this->worker, getmypid(), $this->generation);
        @unlink($this->ownSocket);
        $this->listener = $this->unix->listen($this->system->loop, 'unix://' . $this->ownSocket, $this->system->logger);
        $this->system->spawnSystemActor(WatchRelay::behavior($this->system), WatchRelay::NAME);
        $this->system->deadLetters->redirectWith(function (mixed $message, ?ActorRef $sender, string $recipient, DeadLetterReason $reason): bool {
            return ($this->placements?->redirect($message, $sender, $recipient, $reason) ?? false)
                || $this->handOff->redirect($message, $sender, $recipient, $reason);
        });
        $this->listener->onConnection($this->accept(...));
        $link = \sprintf('%s/worker-%d.sock', $this->runtimeDir, $this->worker);
        $previous = @readlink($link);
        if (\is_string($previous) && $previous !== $this->ownSocket
            && preg_match('#/worker-\d+-(\d+)-\d+\.sock$#', $previous, $match) === 1
            && HandOff::isAlive($previous, (int) $match[1])) {
            $this->handOff->expectPredecessor($previous, (int) $match[1]);
        }
        $temporary = $link . '.' . getmypid();
        @unlink($temporary);
        if (!@symlink($this->ownSocket, $temporary) || !@rename($temporary, $link)) {
            throw new \RuntimeException("Could not publish this worker's socket as {$link}: is {$this->runtimeDir} writable?");
        }
    }

    /**
     * Accepts links from the slots of other nodes on $listener (TCP) too: the same handshake,
     * frames and bounds as between the workers of this machine.
     */
    public function listenForNodes(Listener $listener): void
    {
        $this->remoteListeners[] = $listener;
        $this->tcp->accept($listener, $this->accept(...));
        if (\count($this->remoteListeners) === 1) {
            $loop = $this->system->loop;
            $loop->unreference($loop->repeat(self::ACK_CHECK_EVERY, $this->checkNodeLinks(...)));
        }
    }

    /**
     * Seconds a link to another node may go without an acknowledgement while batches wait for
     * one before it is closed (see PeerLink::expireUnacknowledged()): longer than a receiver may
     * hold a batch for a full mailbox (undeliveredTimeout), so only a link that stopped is.
     */
    public function nodeAckTimeout(): float
    {
        return max(10.0, 2 * $this->undeliveredTimeout + 2.0);
    }

    private function checkNodeLinks(): void
    {
        foreach ($this->peers as $slot => $peer) {
            if ($slot >= 0 && !$this->isLocal($slot)) {
                $peer->expireUnacknowledged($this->nodeAckTimeout());
            }
        }
    }

    /**
     * Where the slots of other nodes listen (tcp://host:port by slot): the cluster's view.
     *
     * @param array<int, string> $addresses
     */
    public function setRemoteAddresses(array $addresses): void
    {
        $this->remoteAddresses = $addresses;
    }

    /**
     * Whether $slot is one of this node's workers (or the other process of this slot in a reload).
     */
    public function isLocal(int $slot): bool
    {
        return $slot < 0 || Slots::node($slot) === $this->node;
    }

    /**
     * The cluster's view changed: links go to where slots listen now, and the links to the slots
     * of nodes that left are given up (what was sent there unconfirmed, or waits for them, is a
     * dead letter: NodeLost).
     */
    public function viewChanged(View $view, ?View $previous): void
    {
        $this->remoteAddresses = $view->addresses();
        foreach ($previous->members ?? [] as $member) {
            if ($member->incarnation !== $this->node && $view->member($member->incarnation) === null) {
                if (\count($this->departed) >= 1_024) {
                    $this->departed = [];
                }
                $this->departed[$member->incarnation] = true;
            }
        }
        foreach ($this->peers as $slot => $peer) {
            if ($slot >= 0 && isset($this->departed[Slots::node($slot)])) {
                unset($this->peers[$slot]);
                $peer->drop(DeadLetterReason::NodeLost);
                $this->workerLost($slot);
            }
        }
        foreach ($this->inbound as $link) {
            $peer = $link->peer();
            if ($peer !== null && $peer >= 0 && isset($this->departed[Slots::node($peer)])) {
                $link->close();
            }
        }
    }

    /**
     * Whether nothing sent to $slot waits or is unconfirmed.
     */
    public function isIdleTowards(int $slot): bool
    {
        return !isset($this->peers[$slot]) || $this->peers[$slot]->isIdle();
    }

    private function accept(Connection $connection): void
    {
        $key = spl_object_id($connection);
        $this->inbound[$key] = new InboundLink($connection, $this, $this->system->logger);
        $connection->onClose(function () use ($key): void {
            unset($this->inbound[$key]);
            $this->checkDrained();
        });
    }

    /**
     * @internal an inbound link counts each batch it reads
     */
    public function received(int $peer, int $bytes): void
    {
        $this->framesReceived[$peer] = ($this->framesReceived[$peer] ?? 0) + 1;
        $this->bytesReceived[$peer] = ($this->bytesReceived[$peer] ?? 0) + $bytes;
    }

    /**
     * The links with each other worker of this node, for metrics: batches and bytes sent and
     * received so far, and batches sent but not acknowledged yet. Only real workers (0..count-1):
     * the links of a hand-off and to other nodes are left out.
     *
     * @return list<array{peer: int, framesSent: int, bytesSent: int, unacknowledged: int, framesReceived: int, bytesReceived: int}>
     */
    public function linkStats(): array
    {
        $rows = [];
        for ($worker = 0; $worker < $this->count; ++$worker) {
            $peer = Slots::id($this->node, $worker);
            if ($peer === $this->id) {
                continue;
            }
            $link = $this->peers[$peer] ?? null;
            $rows[] = [
                'peer' => $worker,
                'framesSent' => $link === null ? 0 : $link->framesSent(),
                'bytesSent' => $link === null ? 0 : $link->bytesSent,
                'unacknowledged' => $link === null ? 0 : $link->unacknowledged(),
                'framesReceived' => $this->framesReceived[$peer] ?? 0,
                'bytesReceived' => $this->bytesReceived[$peer] ?? 0,
            ];
        }

        return $rows;
    }

    /**
     * Lets the links drain, then closes them: what is queued leaves, and the returned future
     * settles once everything sent from here is acknowledged, no reply is awaited any more and,
     * when a new worker replaces this one, the other workers have moved their links to it (they
     * took their last acknowledgements here) — or once DRAIN_TIMEOUT has passed. What was not
     * confirmed by then becomes dead letters at the other end (WorkerLost). The socket stays open
     * meanwhile: the worker replacing this one sends there the replies to what it was passed.
     *
     * @return Future<null>
     */
    public function stop(): Future
    {
        if ($this->drained !== null) {
            return $this->drained->future();
        }
        $loop = $this->system->loop;
        /** @var Deferred<null> $drained */
        $drained = new Deferred($loop);
        $this->drained = $drained;
        $this->handOff->leaving();
        if ($this->handOff->isHandingOff()) {
            foreach ($this->inbound as $link) {
                $link->goodbye(); // the other workers move to the new worker once all is confirmed
            }
        }
        foreach ($this->peers as $peer) {
            $peer->close();
        }
        $timer = $loop->delay(self::DRAIN_TIMEOUT, function (): void {
            $this->closeAll();
        });
        $poll = $loop->repeat(0.02, $this->checkDrained(...));
        $loop->unreference($poll);
        $drained->future()->onSettle(static function () use ($loop, $timer, $poll): void {
            $loop->cancel($timer);
            $loop->cancel($poll);
        });
        $this->checkDrained();

        return $drained->future();
    }

    /**
     * During stop(), settles the drain once nothing is left to wait for.
     */
    public function checkDrained(): void
    {
        if ($this->drained === null || $this->drained->isSettled() || $this->replies->count() > 0) {
            return;
        }
        if ($this->handOff->isHandingOff()) {
            foreach ($this->inbound as $link) {
                if ($link->role() !== 'successor') {
                    return; // a peer that has not switched over to the new worker yet
                }
            }
        }
        foreach ($this->peers as $peer) {
            if (!$peer->isIdle()) {
                return;
            }
        }
        $this->closeAll();
    }

    private function closeAll(): void
    {
        $this->listener?->close();
        $this->listener = null;
        foreach ($this->remoteListeners as $listener) {
            $listener->close();
        }
        $this->remoteListeners = [];
        foreach ($this->peers as $peer) {
            $peer->abort();
        }
        foreach ($this->inbound as $link) {
            $link->close();
        }
        $this->inbound = [];
        if ($this->ownSocket !== '') {
            @unlink($this->ownSocket);
        }
        $this->drained?->tryResolve(null);
    }

    // ---- LinkHost: what the links know of this worker ----------------------------------------

    public function loop(): Loop
    {
        return $this->system->loop;
    }

    public function logger(): LoggerInterface
    {
        return $this->system->logger;
    }

    public function codec(): MessageCodec
    {
        return $this->codec;
    }

    public function handshake(): Handshake
    {
        return $this->handshake;
    }

    public function undeliveredTimeout(): float
    {
        return $this->undeliveredTimeout;
    }

    public function localId(): int
    {
        return $this->id;
    }

    /**
     * The identity this worker proves in a link's handshake, as the client ($role) or the server.
     */
    public function identity(?string $role = null): string
    {
        return $role === null ? "worker:{$this->id}" : "{$role}:{$this->id}";
    }

    public function dial(int $peer, int $writeHighWaterMark): Future
    {
        if ($this->isLocal($peer)) {
            return $this->unix->connect($this->system->loop, $this->socketAddress($peer), self::CONNECT_TIMEOUT, $writeHighWaterMark);
        }
        $address = $this->remoteAddresses[$peer] ?? null;
        if ($address === null) {
            return Future::rejected($this->system->loop, new ConnectException(Slots::describe($peer) . ' is not in the cluster this worker knows of.'));
        }

        return $this->tcp->connect($this->system->loop, $address, self::CONNECT_TIMEOUT, $writeHighWaterMark);
    }

    public function accepts(int $peer, int $serverId): bool
    {
        return $peer < 0 ? Slots::worker($serverId) === $this->worker : $serverId === $peer;
    }

    /**
     * A worker the master started may link here: a worker number from 0 to count-1 of this node
     * other than this one's, or this slot's own number for the worker this one replaces or is
     * replaced by; in a cluster also any slot of another node (it proved the cluster secret).
     */
    public function admit(string $role, int $id): int
    {
        $local = Slots::node($id) === $this->node;
        $alias = match ($role) {
            'peer' => $id >= 0 && ($local ? Slots::worker($id) < $this->count && $id !== $this->id : $this->node > 0) ? -1 : null,
            // The other process of this slot in a reload (on this machine: the runtime directory
            // is private); after a rejoin it may still have the node's previous number.
            'predecessor' => Slots::worker($id) === $this->worker && $this->handOff->expectsPredecessor() ? self::PREDECESSOR : null,
            'successor' => Slots::worker($id) === $this->worker && $this->handOff->isHandingOff() ? self::SUCCESSOR : null,
            default => null,
        };

        return $alias ?? throw new FrameException("it claims to be {$role} {$id}, which is no worker the master started for this pool of {$this->count}");
    }

    public function linkClosed(): void
    {
        $this->checkDrained();
    }

    public function peerLost(int $peer): void
    {
        $this->workerLost($peer);
    }

    // ---- sending ------------------------------------------------------------------------------

    /**
     * The Unix socket of a worker of this node ($worker: a slot of this node, or PREDECESSOR or
     * SUCCESSOR).
     */
    public function socketAddress(int $worker): string
    {
        if ($worker === self::PREDECESSOR) {
            return 'unix://' . $this->handOff->predecessorSocket();
        }

        return \sprintf('unix://%s/worker-%d.sock', $this->runtimeDir, $worker === self::SUCCESSOR ? $this->worker : Slots::worker($worker));
    }

    /**
     * @param \Closure(string): ?Endpoint $resolve the entity of that id (started if need be), or null
     */
    public function addKind(string $regionPath, \Closure $resolve): void
    {
        $this->recipients->addKind($regionPath, $resolve);
    }

    public function remoteRef(int $worker, string $path): RemoteActorRef
    {
        if (str_starts_with($path, ReplyAddresses::PREFIX)) {
            return new RemoteActorRef($this, $worker, $path);
        }
        $key = $worker . $path;
        $ref = $this->remoteRefs[$key] ?? null;
        if ($ref === null) {
            if (\count($this->remoteRefs) >= self::REMOTE_REF_CACHE) {
                $this->remoteRefs = [];
            }
            $ref = $this->remoteRefs[$key] = new RemoteActorRef($this, $worker, $path);
        }

        return $ref;
    }

    /**
     * Sends $message to the actor at $path on $worker.
     *
     * Bounds: a message estimated above MAX_MESSAGE_BYTES is refused here, with nothing sent.
     * When the link is congested (see PeerLink::isCongested()), a sender inside a fiber waits
     * until it is relieved, at most undeliveredTimeout; a sender that cannot wait (outside any
     * fiber) or waited in vain gets its message turned into a dead letter (LinkCongested), and
     * an ask fails at once.
     *
     * @param string $replyAddress an ask's own reply address (ask()): the message is sent from it,
     *                             with no RemoteActorRef made for it ($sender is then ignored)
     *
     * @throws \Nexus\Worker\Exception\UnregisteredMessageClassException
     * @throws MessageTooLargeException
     */
    public function send(int $worker, string $path, mixed $message, ?ActorRef $sender, string $replyAddress = ''): void
    {
        if ($worker === $this->id) {
            $this->deliver($path, $message, $replyAddress === '' ? $sender : $this->remoteRef($this->id, $replyAddress));

            return;
        }
        $objects = 0;
        if (\is_int($message)) {
            $size = 9; // the common small messages, without a call
        } elseif (\is_string($message)) {
            $size = \strlen($message) + 5;
        } else {
            $classes = $this->classes;
            $classes->found = 0;
            $size = $classes->check($message);
            $objects = $classes->found;
        }
        if ($this->departed !== [] && isset($this->departed[Slots::node($worker)]) && $worker >= 0) {
            $this->undeliverable(BatchLayout::single($path, $message, ...$this->senderAddress($sender, $replyAddress)), $worker, DeadLetterReason::NodeLost);

            return;
        }
        if ($size > self::MAX_MESSAGE_BYTES) {
            throw new MessageTooLargeException(\sprintf(
                'A %s of about %d bytes is larger than a link between workers carries (%d bytes): send a reference to the data instead, or split it.',
                get_debug_type($message),
                $size,
                self::MAX_MESSAGE_BYTES,
            ));
        }
        $peer = $this->peers[$worker] ?? $this->link($worker);
        if ($peer->full && !$this->waitForLink($peer)) {
            $this->undeliverable(BatchLayout::single($path, $message, ...$this->senderAddress($sender, $replyAddress)), $worker, DeadLetterReason::LinkCongested);

            return;
        }
        if ($replyAddress !== '') {
            $peer->enqueue($path, $message, $this->id, $replyAddress, $size, $objects);
        } elseif ($sender === null) {
            $peer->enqueue($path, $message, -1, '', $size, $objects);
        } elseif ($sender instanceof Endpoint) {
            $peer->enqueue($path, $message, $this->id, $sender->path(), $size, $objects);
        } elseif ($sender instanceof RemoteActorRef) {
            $peer->enqueue($path, $message, $sender->worker < -1 ? $this->id : $sender->worker, $sender->path(), $size, $objects);
        } else {
            $peer->enqueue($path, $message, $this->id, $this->replies->forSender($sender), $size, $objects);
        }
    }

    /**
     * Passes a message on without waiting (the hand-off to the successor): it is checked like any
     * other, but never waits for the link, as it is passed on from where nothing can wait.
     *
     * @throws \Nexus\Worker\Exception\UnregisteredMessageClassException
     */
    public function forward(int $worker, string $path, mixed $message, ?ActorRef $sender): void
    {
        $this->classes->found = 0;
        $size = $this->classes->check($message);
        $objects = $this->classes->found;
        [$senderWorker, $senderPath] = $this->senderAddress($sender);
        ($this->peers[$worker] ?? $this->link($worker))->enqueue($path, $message, $senderWorker, $senderPath, $size, $objects);
    }

    /**
     * Passes a message for a placed actor on to the slot that owns it (see Placements::route()).
     */
    public function relay(int $owner, string $path, Relayed $message, ?ActorRef $sender): void
    {
        try {
            $this->forward($owner, $path, $message, $sender);
        } catch (\Throwable $e) {
            $this->undelivered->failed($path, $message->message, $sender, $e);
        }
    }

    /**
     * Sends $message to the named actor or entity at $path wherever the cluster places it.
     */
    public function sendPlaced(string $path, mixed $message, ?ActorRef $sender): void
    {
        $owner = $this->placements?->ownerOf(substr($path, 6));
        if ($owner !== null && $owner !== $this->id) {
            $this->send($owner, $path, $message, $sender);

            return;
        }
        $this->deliverPlaced($path, $message, $sender, 0, false);
    }

    /**
     * @return Future<mixed>
     */
    public function askPlaced(string $path, mixed $message, float $timeout): Future
    {
        /** @var Future<mixed> $future */
        $future = new Future($this->system->loop);
        $address = $this->replies->forAsk($future, $timeout, $path, null, $message);
        try {
            $this->sendPlaced($path, $message, $this->remoteRef($this->id, $address));
        } catch (\Throwable $e) {
            $this->replies->free($this->replies->idOf($address));

            throw $e;
        }

        return $future;
    }

    /**
     * Delivers a message for a placed actor that this worker has in hand (from a local sender, or
     * one that waited), starting the actor when it is ours and may start.
     */
    public function deliverPlaced(string $path, mixed $message, ?ActorRef $sender, int $hops, bool $handOff, int $revision = 0): void
    {
        try {
            $this->toPlaced($path, $message, $sender, $hops, $handOff, true, $revision);
        } catch (\Throwable $e) {
            $this->undelivered->failed($path, $message, $sender, $e);
        }
    }

    /**
     * A message not delivered here: a dead letter with $reason, and an ask fails at once.
     */
    public function refuse(string $path, mixed $message, ?ActorRef $sender, DeadLetterReason $reason, string $detail): void
    {
        $this->undelivered->refuse($path, $message, $sender, $reason, $detail);
    }

    /**
     * Sends a message of the runtime's own (a watch, a reply that an ask failed) without waiting
     * and without the congestion check: these are few, and each answers one that arrived.
     */
    public function sendControl(int $worker, string $path, object $message, ?ActorRef $sender): void
    {
        if ($worker === $this->id) {
            $this->deliver($path, $message, $sender);

            return;
        }
        [$senderWorker, $senderPath] = $this->senderAddress($sender);
        ($this->peers[$worker] ?? $this->link($worker))->enqueue($path, $message, $senderWorker, $senderPath, 64, MessageClasses::OBJECTS);
    }

    /**
     * @return Future<mixed>
     */
    public function ask(int $worker, string $path, mixed $message, float $timeout): Future
    {
        /** @var Future<mixed> $future */
        $future = new Future($this->system->loop);
        $address = $this->replies->forAsk($future, $timeout, $path, $worker, $message);
        try {
            $this->send($worker, $path, $message, null, $address);
        } catch (\Throwable $e) {
            $this->replies->free($this->replies->idOf($address));

            throw $e;
        }

        return $future;
    }

    /**
     * $watcher watches $target: the relay on $target's worker reports its end; losing that worker
     * ends the watch too (workerLost()).
     */
    public function watch(RemoteActorRef $target, Endpoint $watcher): void
    {
        $this->watches->add($target->worker, $target->path(), $watcher);
        $this->sendControl($target->worker, WatchRelay::PATH, new RemoteWatch($target->path()), $watcher);
    }

    public function unwatch(RemoteActorRef $target, Endpoint $watcher): void
    {
        $this->watches->remove($target->worker, $target->path(), $watcher->path());
        $this->sendControl($target->worker, WatchRelay::PATH, new RemoteUnwatch($target->path()), $watcher);
    }

    /**
     * The link to $worker broke, or it stayed unreachable: every actor watched there is, for the
     * watchers here, terminated.
     */
    public function workerLost(int $worker): void
    {
        foreach ($this->watches->takeAll($worker) as $path => $watchers) {
            $dead = $this->remoteRef($worker, $path);
            foreach ($watchers as $watcher) {
                $watcher->remoteTerminated($dead);
            }
        }
    }

    /**
     * Delivers a decoded batch (laid out as BatchLayout says) from position $from on, and returns
     * the position reached: the end, or
     * the first message that must wait (its mailbox holds MAILBOX_HIGH_WATER messages, or is a
     * full one with the Backpressure policy; the hand-off buffer is full). With $force, such a
     * message is delivered anyway or becomes a dead letter (the wait ran out).
     *
     * Each message is delivered or becomes a dead letter with its own reason; an exception from
     * one (a factory that throws, an id that is no valid name) never reaches the others.
     *
     * @param list<mixed> $batch
     * @param int         $selfAlias how a sender of this worker's own number is to be addressed
     *                               (a predecessor or successor shares the number)
     */
    public function deliverBatch(array $batch, int $from, int $selfAlias, bool $force = false): int
    {
        $count = \count($batch);
        $sender = null;
        if ($from > BatchLayout::FIRST) {
            // Resuming after a wait: the sender in effect there was written before it.
            [$senderWorker, $senderPath] = BatchLayout::senderAt($batch, $from);
            $sender = $senderWorker === -1 ? null : $this->remoteRef($senderWorker === $this->id ? $selfAlias : $senderWorker, $senderPath);
        }
        $lastEndpoint = null;
        $live = false;
        $limit = \PHP_INT_MAX;
        $handOff = $this->handOff->active() ? $this->handOff : null;
        $recipients = $this->recipients;
        for ($i = $from; $i + 1 < $count; $i += 2) {
            $path = $batch[$i];
            if (!\is_string($path)) {
                // A run of messages from one sender starts (see BatchLayout): look it up once.
                $senderPath = $batch[$i + 1];
                if (\is_int($path) && \is_string($senderPath)) {
                    $sender = $path === -1 ? null : $this->remoteRef($path === $this->id ? $selfAlias : $path, $senderPath);
                } else {
                    --$i; // not a pair a worker writes: skip one value
                }

                continue;
            }
            $message = $batch[$i + 1];
            if ($handOff !== null) {
                $route = $handOff->route($path, $message, $sender, $selfAlias, $force);
                if ($route === HandOff::HANDLED) {
                    continue;
                }
                if ($route === HandOff::WAIT) {
                    return $i;
                }
            }
            $endpoint = $recipients->endpoints[$path] ?? null;
            if ($endpoint !== null && $endpoint !== $lastEndpoint) {
                // Delivering only queues (no actor runs meanwhile), so what an endpoint says holds
                // for the rest of the batch: ask once per run of messages to it.
                $lastEndpoint = $endpoint;
                $live = !$endpoint->isTerminated();
                $limit = $endpoint->deliveryLimit() ?? self::MAILBOX_HIGH_WATER;
            }
            if ($endpoint !== null && $live && !$message instanceof MeshControl) {
                // A full Backpressure mailbox is checked at each message, the soft high-water
                // mark of an unbounded one at every 16th (it may be passed by 15; paths are at odd
                // positions, see BatchLayout).
                if ($limit !== \PHP_INT_MAX && ($limit !== self::MAILBOX_HIGH_WATER || ($i & 31) === 1) && $endpoint->queued() >= $limit) {
                    if (!$force) {
                        return $i;
                    }
                    $this->undelivered->refuse($path, $message, $sender, DeadLetterReason::MailboxFull, "the mailbox of {$path} on " . Slots::describe($this->id) . ' stayed full');

                    continue;
                }
                try {
                    $endpoint->deliver($message, $sender);
                } catch (\Throwable $e) {
                    $this->undelivered->failed($path, $message, $sender, $e);
                }

                continue;
            }
            try {
                if (!$this->deliverRouted($path, $message, $sender, $force)) {
                    return $i;
                }
            } catch (\Throwable $e) {
                $this->undelivered->failed($path, $message instanceof Relayed ? $message->message : $message, $sender, $e);
            }
            $lastEndpoint = null; // the delivery may have started an entity
        }

        return $count;
    }

    /**
     * The path of this worker's own socket (what worker-<id>.sock points to while it is current).
     */
    public function localSocket(): string
    {
        return $this->ownSocket;
    }

    /**
     * Hands this worker's named actors and entities to the worker that replaces it (SIGTERM
     * during a reload): tells the other workers to send to the new one once what they sent here
     * is confirmed, and stops the actors (see HandOff). Does nothing when no worker replaces this
     * one (the pool stops).
     */
    public function handOff(): void
    {
        if (!$this->handOff->start()) {
            return;
        }
        // The slot's socket for other nodes is shared with the new worker: only it accepts now,
        // so the links told to move (Goodbye) reach it.
        foreach ($this->remoteListeners as $listener) {
            $listener->close();
        }
        $this->remoteListeners = [];
        foreach ($this->inbound as $link) {
            if ($link->role() === 'peer') {
                $link->goodbye();
            }
        }
    }

    public function successorCongested(): bool
    {
        return isset($this->peers[self::SUCCESSOR]) && $this->peers[self::SUCCESSOR]->isCongested();
    }

    /**
     * Messages that left this worker but may not have arrived (WorkerLost), or never could leave
     * it (see Undelivered::batch()).
     *
     * @param list<mixed> $batch laid out as BatchLayout says
     */
    public function undeliverable(array $batch, int $worker, DeadLetterReason $reason): void
    {
        $this->undelivered->batch($batch, $worker, $reason);
    }

    /**
     * Tells the remote asker behind $asker (a /temp address on another worker) that its message
     * was not delivered here.
     */
    public function notifyAsker(RemoteActorRef $asker, DeadLetterReason $reason, string $detail): void
    {
        $this->sendControl($asker->worker, $asker->path(), new RemoteAskFailed($detail, $reason->value), null);
    }

    /**
     * Delivers to this worker: a reply to a /temp address, or a message for a local actor,
     * started first when it is an entity.
     */
    public function deliver(string $path, mixed $message, ?ActorRef $sender): void
    {
        $this->deliverRouted($path, $message, $sender, true);
    }

    /**
     * deliver(), saying false when the message must wait (only when !$force: the messages held
     * for placed actors that cannot start yet are at their limit).
     */
    private function deliverRouted(string $path, mixed $message, ?ActorRef $sender, bool $force): bool
    {
        if ($this->placements !== null && ($message instanceof Relayed || $this->placements->isPlaced($path))) {
            return $message instanceof Relayed
                ? $this->toPlaced($path, $message->message, $sender, $message->hops, $message->handOff, $force, $message->revision)
                : $this->toPlaced($path, $message, $sender, 0, false, $force);
        }
        if (str_starts_with($path, ReplyAddresses::PREFIX)) {
            if (str_starts_with($path, $this->replies->prefix) || !$this->handOff->passReply($path, $message, $sender)) {
                $this->replies->deliver($path, $message, $sender, $this->replyFailure);
            }

            return true;
        }
        if ($message instanceof HandOffComplete) {
            $this->handOff->predecessorDone();

            return true;
        }
        $ref = $this->recipients->cached($path);
        if ($ref === null || $ref->isTerminated()) {
            if ($this->handOff->forwards($path)) {
                $this->handOff->forward($path, $message, $sender);

                return true;
            }
            $ref = $this->recipients->resolve($path);
            if ($ref === null) {
                $this->undelivered->refuse($path, $message, $sender, DeadLetterReason::NoRecipient, "no actor lives at {$path} on " . Slots::describe($this->id));

                return true;
            }
        }
        if ($message instanceof RemoteTerminated && $sender instanceof RemoteActorRef) {
            $dead = $this->remoteRef($sender->worker, $message->path);
            $this->watches->remove($sender->worker, $message->path, $ref->path());
            $ref->remoteTerminated($dead);

            return true;
        }
        $ref->deliver($message, $sender);

        return true;
    }

    /**
     * A message for a placed actor: into its mailbox when it lives here, else where Placements
     * says (started here, passed on, held, refused). False: it must wait (see deliverRouted()).
     */
    private function toPlaced(string $path, mixed $message, ?ActorRef $sender, int $hops, bool $handOff, bool $force, int $revision = 0): bool
    {
        $placements = $this->placements;
        \assert($placements !== null);
        $ref = $this->recipients->cached($path) ?? $this->system->endpoint($path);
        if ($ref === null || $ref->isTerminated()) {
            if ($this->handOff->forwards($path)) {
                $this->handOff->forward($path, $message, $sender); // a reload: to this slot's new worker

                return true;
            }
            $route = $placements->route($path, $message, $sender, $hops, $handOff, $force, $revision);
            if ($route !== Placements::DELIVER) {
                return $route === Placements::HANDLED;
            }
            $ref = $this->recipients->resolve($path);
            if ($ref === null) {
                $this->undelivered->refuse($path, $message, $sender, DeadLetterReason::NoRecipient, "no actor lives at {$path} on " . Slots::describe($this->id));

                return true;
            }
        }
        $ref->deliver($message, $sender);

        return true;
    }

    /**
     * Live watches of actors on other workers, and reply addresses waiting: for tests that show
     * they are freed.
     *
     * @return array{watches: int, replies: int}
     */
    public function tableSizes(): array
    {
        return ['watches' => $this->watches->count(), 'replies' => $this->replies->count()];
    }

    /**
     * @return array{int, string} how $sender travels: (worker, path), (-1, '') for none
     */
    private function senderAddress(?ActorRef $sender, string $replyAddress = ''): array
    {
        if ($replyAddress !== '') {
            return [$this->id, $replyAddress]; // an ask's own reply address (see send())
        }
        if ($sender === null) {
            return [-1, ''];
        }
        if ($sender instanceof Endpoint) {
            return [$this->id, $sender->path()];
        }
        if ($sender instanceof RemoteActorRef) {
            return [$sender->worker < -1 ? $this->id : $sender->worker, $sender->path()];
        }

        return [$this->id, $this->replies->forSender($sender)];
    }

    private function waitForLink(PeerLink $peer): bool
    {
        if (\Fiber::getCurrent() === null) {
            return false;
        }
        $deadline = $this->system->loop->now() + $this->undeliveredTimeout;
        while ($peer->isCongested()) {
            $left = $deadline - $this->system->loop->now();
            if ($left <= 0) {
                return false;
            }
            try {
                $peer->whenRelieved()->await($left);
            } catch (TimeoutException) {
                return false;
            }
        }

        return true;
    }

    private function link(int $worker): PeerLink
    {
        return $this->peers[$worker] = new PeerLink($this, $worker, match ($worker) {
            self::SUCCESSOR => 'predecessor',
            self::PREDECESSOR => 'successor',
            default => 'peer',
        });
    }

    /**
     * What an ask across the mesh fails with when no reply came in time (counted in the actor
     * system's stats): the message names the recipient, its slot when known (a placed actor's
     * is not), the timeout and the message's type.
     */
    private function askTimedOut(PendingReply $ask): AskTimeoutException
    {
        ++$this->system->stats->askTimeouts;
        $message = $ask->message;

        return new AskTimeoutException(\sprintf(
            'No reply from %s%s within %.3f s to %s.',
            $ask->path,
            $ask->worker === null ? '' : ' on ' . Slots::describe($ask->worker),
            $ask->timeout,
            get_debug_type($message instanceof Traced ? $message->message : $message),
        ));
    }
}
