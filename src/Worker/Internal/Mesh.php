<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Internal\ActorCell;
use Nexus\Actor\Internal\LocalActorRef;
use Nexus\Actor\Internal\RemoteDeathNotice;
use Nexus\Actor\Mailbox\OverflowPolicy;
use Nexus\Actor\Props;
use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Future;
use Nexus\Worker\Codec\Internal\HandOffComplete;
use Nexus\Worker\Codec\Internal\RemoteAskFailed;
use Nexus\Worker\Codec\Internal\RemoteTerminated;
use Nexus\Worker\Codec\Internal\RemoteUnwatch;
use Nexus\Worker\Codec\Internal\RemoteWatch;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\Exception\MessageTooLargeException;
use Nexus\Worker\RemoteActorRef;
use Nexus\Worker\Transport\Handshake;
use Nexus\Worker\Transport\InboundLink;
use Nexus\Worker\Transport\PeerLink;

/**
 * This worker's end of the pool's all-to-all links: it sends messages to actors on other workers
 * and delivers what they send here.
 *
 * Each worker listens on a Unix socket in the pool's runtime directory; a link to another worker
 * is opened on first use and carries messages one way, batched per loop turn (PeerLink). Replies
 * to a remote ask come back to a /temp/g<generation>.<n> address that lives only in this mesh
 * (ReplyAddresses).
 *
 * Delivery is at most once, in order per sender and receiver (docs/architecture.md, "Delivery
 * guarantees"). Every message that cannot be delivered becomes a dead letter with its own reason,
 * one at a time: a bad message never sinks the batch it came in, and an ask among them fails at
 * once with that reason.
 *
 * @internal
 */
final class Mesh
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
    /** Local actors found by path kept at most (the cache is emptied when full). */
    private const LOCAL_REF_CACHE = 10_000;

    /** @var array<int, PeerLink> */
    private array $peers = [];
    /** @var array<string, LocalActorRef> */
    private array $localRefs = [];
    /** @var array<string, RemoteActorRef> */
    private array $remoteRefs = [];
    /** @var array<string, \Closure(string): ?LocalActorRef> the entity of an id (started if need be), by region path */
    private array $kinds = [];
    private ?Listener $listener = null;
    /** @var array<int, InboundLink> */
    private array $inbound = [];
    /** @var array<int, array{int, int}> batches and bytes received, by the worker they came from */
    private array $receivedTotals = [];
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

    public function __construct(
        public readonly ActorSystem $system,
        public readonly int $id,
        public readonly int $count,
        private readonly string $runtimeDir,
        #[\SensitiveParameter]
        string $secret,
        private readonly MessageClasses $classes,
        public readonly MessageCodec $codec,
        public readonly float $undeliveredTimeout,
        public readonly int $generation = 1,
    ) {
        $this->replies = new ReplyAddresses($system->loop, $system->deadLetters, $id, $generation);
        $this->watches = new RemoteWatches();
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
        $this->ownSocket = \sprintf('%s/worker-%d-%d-%d.sock', $this->runtimeDir, $this->id, getmypid(), $this->generation);
        @unlink($this->ownSocket);
        $this->listener = Listener::listen($this->system->loop, 'unix://' . $this->ownSocket);
        $this->system->spawnSystemActor(WatchRelay::behavior($this->system), WatchRelay::NAME);
        $this->listener->onConnection(function (Connection $connection): void {
            $key = spl_object_id($connection);
            $this->inbound[$key] = new InboundLink($connection, $this, $this->system->logger);
            $connection->onClose(function () use ($key): void {
                unset($this->inbound[$key]);
                $this->checkDrained();
            });
        });
        $link = \sprintf('%s/worker-%d.sock', $this->runtimeDir, $this->id);
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
     * @internal an inbound link counts each batch it reads
     */
    public function received(int $peer, int $bytes): void
    {
        $totals = $this->receivedTotals[$peer] ?? [0, 0];
        $this->receivedTotals[$peer] = [$totals[0] + 1, $totals[1] + $bytes];
    }

    /**
     * The links with each other worker, for metrics: batches and bytes sent and received so far,
     * and batches sent but not acknowledged yet. Only real workers (0..count-1): the links of a
     * hand-off are left out.
     *
     * @return list<array{peer: int, framesSent: int, bytesSent: int, unacknowledged: int, framesReceived: int, bytesReceived: int}>
     */
    public function linkStats(): array
    {
        $rows = [];
        for ($peer = 0; $peer < $this->count; ++$peer) {
            if ($peer === $this->id) {
                continue;
            }
            $link = $this->peers[$peer] ?? null;
            $received = $this->receivedTotals[$peer] ?? [0, 0];
            $rows[] = [
                'peer' => $peer,
                'framesSent' => $link === null ? 0 : $link->framesSent,
                'bytesSent' => $link === null ? 0 : $link->bytesSent,
                'unacknowledged' => $link === null ? 0 : $link->unacknowledged(),
                'framesReceived' => $received[0],
                'bytesReceived' => $received[1],
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

    /**
     * The identity this worker proves in a link's handshake, as the client ($role) or the server.
     */
    public function identity(?string $role = null): string
    {
        return $role === null ? "worker:{$this->id}" : "{$role}:{$this->id}";
    }

    public function socketAddress(int $worker): string
    {
        if ($worker === self::PREDECESSOR) {
            return 'unix://' . $this->handOff->predecessorSocket();
        }

        return \sprintf('unix://%s/worker-%d.sock', $this->runtimeDir, $worker === self::SUCCESSOR ? $this->id : $worker);
    }

    /**
     * @param \Closure(string): (Props|Behavior) $factory
     */
    /**
     * @param \Closure(string): ?LocalActorRef $resolve the entity of that id (started if need be), or null
     */
    public function addKind(string $regionPath, \Closure $resolve): void
    {
        $this->kinds[$regionPath] = $resolve;
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
     * @throws \Nexus\Worker\Exception\UnregisteredMessageClassException
     * @throws MessageTooLargeException
     */
    public function send(int $worker, string $path, mixed $message, ?ActorRef $sender): void
    {
        if ($worker === $this->id) {
            $this->deliver($path, $message, $sender);

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
        if ($size > self::MAX_MESSAGE_BYTES) {
            throw new MessageTooLargeException(\sprintf(
                'A %s of about %d bytes is larger than a link between workers carries (%d bytes): send a reference to the data instead, or split it.',
                get_debug_type($message),
                $size,
                self::MAX_MESSAGE_BYTES,
            ));
        }
        $peer = $this->peers[$worker] ??= new PeerLink($this, $worker);
        if ($peer->full && !$this->waitForLink($peer)) {
            $this->undeliverable([[], $path, $message, ...$this->senderAddress($sender)], $worker, DeadLetterReason::LinkCongested);

            return;
        }
        if ($sender === null) {
            $peer->enqueue($path, $message, -1, '', $size, $objects);
        } elseif ($sender instanceof LocalActorRef) {
            $peer->enqueue($path, $message, $this->id, $sender->cell->path, $size, $objects);
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
        ($this->peers[$worker] ??= new PeerLink($this, $worker))->enqueue($path, $message, $senderWorker, $senderPath, $size, $objects);
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
        ($this->peers[$worker] ??= new PeerLink($this, $worker))->enqueue($path, $message, $senderWorker, $senderPath, 64, MessageClasses::OBJECTS);
    }

    /**
     * @return Future<mixed>
     */
    public function ask(int $worker, string $path, mixed $message, float $timeout): Future
    {
        /** @var Deferred<mixed> $deferred */
        $deferred = new Deferred($this->system->loop);
        $stats = $this->system->stats;
        $address = $this->replies->forAsk($deferred, $timeout, static function () use ($stats, $path, $worker, $timeout, $message): AskTimeoutException {
            ++$stats->askTimeouts;

            return new AskTimeoutException(\sprintf(
                'No reply from %s on worker %d within %.3f s to %s.',
                $path,
                $worker,
                $timeout,
                get_debug_type($message),
            ));
        });
        try {
            $this->send($worker, $path, $message, $this->remoteRef($this->id, $address));
        } catch (\Throwable $e) {
            $this->replies->free($this->replies->idOf($address));

            throw $e;
        }

        return $deferred->future();
    }

    /**
     * $watcher watches $target: the relay on $target's worker reports its end; losing that worker
     * ends the watch too (workerLost()).
     */
    public function watch(RemoteActorRef $target, LocalActorRef $watcher): void
    {
        $this->watches->add($target->worker, $target->path(), $watcher);
        $this->sendControl($target->worker, WatchRelay::PATH, new RemoteWatch($target->path()), $watcher);
    }

    public function unwatch(RemoteActorRef $target, LocalActorRef $watcher): void
    {
        $this->watches->remove($target->worker, $target->path(), $watcher->cell->path);
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
                $watcher->cell->deliver(new RemoteDeathNotice($dead), $dead);
            }
        }
    }

    /**
     * Delivers a decoded batch (the class table, then path, message, sender worker, sender path
     * for each message) from position $from on, and returns the position reached: the end, or
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
        $lastWorker = -1;
        $lastPath = '';
        $sender = null;
        $lastMailbox = null;
        $limit = \PHP_INT_MAX;
        $handOff = $this->handOff->active() ? $this->handOff : null;
        for ($i = $from; $i + 3 < $count; $i += 4) {
            $path = $batch[$i];
            $senderWorker = $batch[$i + 2];
            $senderPath = $batch[$i + 3];
            if (!\is_string($path) || !\is_int($senderWorker) || !\is_string($senderPath)) {
                continue;
            }
            // A batch mostly comes from a few senders: look each up once per run of them.
            if ($senderWorker !== $lastWorker || $senderPath !== $lastPath) {
                $lastWorker = $senderWorker;
                $lastPath = $senderPath;
                $sender = $senderWorker === -1 ? null : $this->remoteRef($senderWorker === $this->id ? $selfAlias : $senderWorker, $senderPath);
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
            $ref = $this->localRefs[$path] ?? null;
            if ($ref !== null && $ref->cell->status !== ActorCell::TERMINATED && !$message instanceof RemoteTerminated) {
                $mailbox = $ref->cell->mailbox;
                if ($mailbox !== $lastMailbox) {
                    $lastMailbox = $mailbox;
                    $limit = $mailbox->capacity === \PHP_INT_MAX
                        ? self::MAILBOX_HIGH_WATER
                        : ($mailbox->overflow === OverflowPolicy::Backpressure ? $mailbox->capacity : \PHP_INT_MAX);
                }
                // A full Backpressure mailbox is checked at each message, the soft high-water
                // mark of an unbounded one at every 16th (it may be passed by 15).
                if ($limit !== \PHP_INT_MAX && ($limit !== self::MAILBOX_HIGH_WATER || ($i & 63) === 1) && $mailbox->count() >= $limit) {
                    if (!$force) {
                        return $i;
                    }
                    $this->undelivered->refuse($path, $message, $sender, DeadLetterReason::MailboxFull, "the mailbox of {$path} on worker {$this->id} stayed full");

                    continue;
                }
                try {
                    $ref->cell->deliver($message, $sender);
                } catch (\Throwable $e) {
                    $this->undelivered->failed($path, $message, $sender, $e);
                }

                continue;
            }
            try {
                $this->deliver($path, $message, $sender);
            } catch (\Throwable $e) {
                $this->undelivered->failed($path, $message, $sender, $e);
            }
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
     * @param list<mixed> $batch the class table, then flat (path, message, sender worker, sender path)
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
        if (str_starts_with($path, ReplyAddresses::PREFIX)) {
            if (str_starts_with($path, $this->replies->prefix) || !$this->handOff->passReply($path, $message, $sender)) {
                $this->replies->deliver($path, $message, $sender, $this->replyFailure);
            }

            return;
        }
        if ($message instanceof HandOffComplete) {
            $this->handOff->predecessorDone();

            return;
        }
        $ref = $this->localRefs[$path] ?? null;
        if ($ref === null || $ref->cell->status === ActorCell::TERMINATED) {
            if ($this->handOff->forwards($path)) {
                $this->handOff->forward($path, $message, $sender);

                return;
            }
            $ref = $this->resolve($path);
            if ($ref === null) {
                $this->undelivered->refuse($path, $message, $sender, DeadLetterReason::NoRecipient, "no actor lives at {$path} on worker {$this->id}");

                return;
            }
        }
        if ($message instanceof RemoteTerminated && $sender instanceof RemoteActorRef) {
            $dead = $this->remoteRef($sender->worker, $message->path);
            $this->watches->remove($sender->worker, $message->path, $ref->cell->path);
            $ref->cell->deliver(new RemoteDeathNotice($dead), $dead);

            return;
        }
        $ref->cell->deliver($message, $sender);
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
    private function senderAddress(?ActorRef $sender): array
    {
        if ($sender === null) {
            return [-1, ''];
        }
        if ($sender instanceof LocalActorRef) {
            return [$this->id, $sender->cell->path];
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

    private function resolve(string $path): ?LocalActorRef
    {
        unset($this->localRefs[$path]);
        $ref = $this->system->lookup($path);
        if ($ref === null) {
            $slash = strrpos($path, '/');
            $regionPath = $slash === false ? '' : substr($path, 0, $slash);
            $entity = $slash === false ? null : ($this->kinds[$regionPath] ?? null);
            $ref = $entity === null ? null : $entity(substr($path, $slash + 1));
        }
        if (!$ref instanceof LocalActorRef) {
            return null;
        }
        if (\count($this->localRefs) >= self::LOCAL_REF_CACHE) {
            $this->localRefs = [];
        }

        return $this->localRefs[$path] = $ref;
    }
}
