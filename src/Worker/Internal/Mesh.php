<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Exception\AskTimeoutException;
use Nexus\Actor\Exception\RecipientTerminatedException;
use Nexus\Actor\Internal\ActorCell;
use Nexus\Actor\Internal\LocalActorRef;
use Nexus\Actor\Internal\RemoteDeathNotice;
use Nexus\Actor\Props;
use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Worker\Codec\Internal\RemoteAskFailed;
use Nexus\Worker\Codec\Internal\RemoteTerminated;
use Nexus\Worker\Codec\Internal\RemoteUnwatch;
use Nexus\Worker\Codec\Internal\RemoteWatch;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Codec\MessageCodec;
use Nexus\Worker\RemoteActorRef;
use Nexus\Worker\Transport\InboundLink;
use Nexus\Worker\Transport\PeerLink;

/**
 * This worker's end of the pool's all-to-all links: it sends messages to actors on other workers
 * and delivers what they send here.
 *
 * Each worker listens on a Unix socket in the pool's runtime directory; a link to another worker
 * is opened on first use and carries messages one way, batched per loop turn (PeerLink). Replies
 * to a remote ask come back to a /temp/<n> address that lives only in this mesh.
 *
 * @internal
 */
final class Mesh
{
    private const TEMP = '/temp/';
    /** How long a forwarding address for a reply to a local non-actor sender (a probe, an ask) stays valid. */
    private const REPLY_ADDRESS_TTL = 60.0;

    /** @var array<int, PeerLink> */
    private array $peers = [];
    /** @var array<string, LocalActorRef> */
    private array $localRefs = [];
    /** @var array<string, RemoteActorRef> */
    private array $remoteRefs = [];
    /** @var array<int, PendingReply> */
    private array $replies = [];
    private int $nextReply = 0;
    /** @var array<string, \Closure(string): (Props|Behavior)> entity factories by region path */
    private array $kinds = [];
    private ?Listener $listener = null;
    /** @var array<int, array<string, array<string, LocalActorRef>>> local watchers by worker, watched path and watcher path */
    private array $watches = [];
    /** @var array<int, InboundLink> */
    private array $inbound = [];

    public function __construct(
        public readonly ActorSystem $system,
        public readonly int $id,
        public readonly int $count,
        private readonly string $runtimeDir,
        private readonly string $secret,
        private readonly MessageClasses $classes,
        private readonly MessageCodec $codec,
        private readonly float $undeliveredTimeout,
    ) {}

    /**
     * Starts listening for the other workers' links. The socket is reached through a stable name
     * (worker-<id>.sock, a symlink swapped atomically) so that a replacement worker takes over
     * its slot while the one it replaces still drains.
     */
    public function start(): void
    {
        $own = \sprintf('%s/worker-%d-%d.sock', $this->runtimeDir, $this->id, getmypid());
        @unlink($own);
        $this->listener = Listener::listen($this->system->loop, 'unix://' . $own);
        $this->system->spawnSystemActor(WatchRelay::behavior($this->system), WatchRelay::NAME);
        $this->listener->onConnection(function (Connection $connection): void {
            $key = spl_object_id($connection);
            $this->inbound[$key] = new InboundLink($connection, $this, $this->secret, $this->codec, $this->system->logger);
            $connection->onClose(function () use ($key): void {
                unset($this->inbound[$key]);
            });
        });
        $link = \sprintf('%s/worker-%d.sock', $this->runtimeDir, $this->id);
        $temporary = $link . '.' . getmypid();
        @unlink($temporary);
        if (!@symlink($own, $temporary) || !@rename($temporary, $link)) {
            throw new \RuntimeException("Could not publish this worker's socket as {$link}: is {$this->runtimeDir} writable?");
        }
    }

    /**
     * Closes every link: queued messages leave first; the other workers learn of the closed
     * inbound links and report what this worker had not confirmed as dead letters.
     */
    public function stop(): void
    {
        $this->listener?->close();
        $this->listener = null;
        foreach ($this->peers as $peer) {
            $peer->close();
        }
        foreach ($this->inbound as $link) {
            $link->close();
        }
        $this->inbound = [];
    }

    /**
     * The payload of the Hello frame that opens a link from this worker.
     */
    public function hello(): string
    {
        return "{$this->id} {$this->codec->name()} {$this->secret}";
    }

    public function socketAddress(int $worker): string
    {
        return \sprintf('unix://%s/worker-%d.sock', $this->runtimeDir, $worker);
    }

    /**
     * @param \Closure(string): (Props|Behavior) $factory
     */
    public function addKind(string $regionPath, \Closure $factory): void
    {
        $this->kinds[$regionPath] = $factory;
    }

    public function remoteRef(int $worker, string $path): RemoteActorRef
    {
        if (str_starts_with($path, self::TEMP)) {
            return new RemoteActorRef($this, $worker, $path);
        }
        $key = $worker . $path;
        $ref = $this->remoteRefs[$key] ?? null;
        if ($ref === null) {
            if (\count($this->remoteRefs) >= 100_000) {
                $this->remoteRefs = [];
            }
            $ref = $this->remoteRefs[$key] = new RemoteActorRef($this, $worker, $path);
        }

        return $ref;
    }

    public function send(int $worker, string $path, mixed $message, ?ActorRef $sender): void
    {
        if ($worker === $this->id) {
            $this->deliver($path, $message, $sender);

            return;
        }
        $this->classes->check($message);
        if ($sender === null) {
            $senderWorker = -1;
            $senderPath = '';
        } elseif ($sender instanceof LocalActorRef) {
            $senderWorker = $this->id;
            $senderPath = $sender->cell->path;
        } elseif ($sender instanceof RemoteActorRef) {
            $senderWorker = $sender->worker;
            $senderPath = $sender->path();
        } else {
            $senderWorker = $this->id;
            $senderPath = $this->replyAddress(new PendingReply(null, $sender, null));
        }
        $peer = $this->peers[$worker] ??= new PeerLink($this, $worker, $this->codec, $this->undeliveredTimeout);
        $peer->enqueue($path, $message, $senderWorker, $senderPath);
        if ($peer->isCongested() && \Fiber::getCurrent() !== null) {
            // Backpressure: a sender that can wait (an actor, a handler) does, instead of
            // buffering without bound for a worker that reads more slowly than it writes.
            $peer->whenRelieved()->await();
        }
    }

    /**
     * @return Future<mixed>
     */
    public function ask(int $worker, string $path, mixed $message, float $timeout): Future
    {
        $loop = $this->system->loop;
        /** @var Deferred<mixed> $deferred */
        $deferred = new Deferred($loop);
        $pending = new PendingReply($deferred, null, null);
        $address = $this->replyAddress($pending, $timeout, static fn(): AskTimeoutException => new AskTimeoutException(\sprintf(
            'No reply from %s on worker %d within %.3f s to %s.',
            $path,
            $worker,
            $timeout,
            get_debug_type($message),
        )));
        try {
            $this->send($worker, $path, $message, $this->remoteRef($this->id, $address));
        } catch (\Throwable $e) {
            $this->settleReply((int) substr($address, \strlen(self::TEMP)));

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
        $this->watches[$target->worker][$target->path()][$watcher->cell->path] = $watcher;
        $this->send($target->worker, WatchRelay::PATH, new RemoteWatch($target->path()), $watcher);
    }

    public function unwatch(RemoteActorRef $target, LocalActorRef $watcher): void
    {
        unset($this->watches[$target->worker][$target->path()][$watcher->cell->path]);
        $this->send($target->worker, WatchRelay::PATH, new RemoteUnwatch($target->path()), $watcher);
    }

    /**
     * The link to $worker broke, or it stayed unreachable: every actor watched there is, for the
     * watchers here, terminated.
     */
    public function workerLost(int $worker): void
    {
        $watches = $this->watches[$worker] ?? [];
        unset($this->watches[$worker]);
        foreach ($watches as $path => $watchers) {
            $dead = $this->remoteRef($worker, $path);
            foreach ($watchers as $watcher) {
                $watcher->cell->deliver(new RemoteDeathNotice($dead), $dead);
            }
        }
    }

    /**
     * Delivers a decoded batch: a flat list of (path, message, sender worker, sender path).
     *
     * @param list<mixed> $batch
     */
    public function deliverBatch(array $batch): void
    {
        $count = \count($batch);
        $lastWorker = -1;
        $lastPath = '';
        $sender = null;
        for ($i = 0; $i + 3 < $count; $i += 4) {
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
                $sender = $senderWorker < 0 ? null : $this->remoteRef($senderWorker, $senderPath);
            }
            $ref = $this->localRefs[$path] ?? null;
            if ($ref !== null && $ref->cell->status !== ActorCell::TERMINATED && !$batch[$i + 1] instanceof RemoteTerminated) {
                $ref->cell->deliver($batch[$i + 1], $sender);
            } else {
                $this->deliver($path, $batch[$i + 1], $sender);
            }
        }
    }

    /**
     * Messages that left this worker but may not have arrived, or never could leave it.
     *
     * @param list<mixed> $batch flat (path, message, sender worker, sender path)
     */
    public function undeliverable(array $batch, int $worker, DeadLetterReason $reason): void
    {
        $count = \count($batch);
        for ($i = 0; $i + 3 < $count; $i += 4) {
            $path = (string) (\is_string($batch[$i]) ? $batch[$i] : '');
            $senderWorker = \is_int($batch[$i + 2]) ? $batch[$i + 2] : -1;
            $senderPath = \is_string($batch[$i + 3]) ? $batch[$i + 3] : '';
            $sender = $senderWorker < 0 ? null : $this->remoteRef($senderWorker, $senderPath);
            if ($senderWorker === $this->id && str_starts_with($senderPath, self::TEMP)) {
                $this->failReply((int) substr($senderPath, \strlen(self::TEMP)), "{$path} on worker {$worker} could not be reached ({$reason->value}).");
            }
            $this->system->deadLetters->publish($batch[$i + 1], $sender, "worker {$worker}:{$path}", $reason);
        }
    }

    private function deliver(string $path, mixed $message, ?ActorRef $sender): void
    {
        if (str_starts_with($path, self::TEMP)) {
            $this->deliverReply($path, $message, $sender);

            return;
        }
        $ref = $this->localRefs[$path] ?? null;
        if ($ref === null || $ref->cell->status === ActorCell::TERMINATED) {
            $ref = $this->resolve($path);
            if ($ref === null) {
                if ($sender instanceof RemoteActorRef && str_starts_with($sender->path(), self::TEMP)) {
                    $sender->tell(new RemoteAskFailed("no actor lives at {$path} on worker {$this->id}"));
                }
                $this->system->deadLetters->publish($message, $sender, $path, DeadLetterReason::NoRecipient);

                return;
            }
        }
        if ($message instanceof RemoteTerminated && $sender instanceof RemoteActorRef) {
            $dead = $this->remoteRef($sender->worker, $message->path);
            unset($this->watches[$sender->worker][$message->path][$ref->cell->path]);
            $ref->cell->deliver(new RemoteDeathNotice($dead), $dead);

            return;
        }
        $ref->cell->deliver($message, $sender);
    }

    private function resolve(string $path): ?LocalActorRef
    {
        unset($this->localRefs[$path]);
        $ref = $this->system->lookup($path);
        if ($ref === null) {
            $slash = strrpos($path, '/');
            $regionPath = $slash === false ? '' : substr($path, 0, $slash);
            $factory = $this->kinds[$regionPath] ?? null;
            $region = $factory === null ? null : $this->system->lookup($regionPath);
            if (!$region instanceof LocalActorRef) {
                return null;
            }
            $ref = $region->cell->spawn($factory(substr($path, $slash + 1)), substr($path, $slash + 1));
        }
        if (!$ref instanceof LocalActorRef) {
            return null;
        }
        if (\count($this->localRefs) >= 100_000) {
            $this->localRefs = [];
        }

        return $this->localRefs[$path] = $ref;
    }

    /**
     * @param (\Closure(): \Throwable)|null $onTimeout
     */
    private function replyAddress(PendingReply $pending, float $ttl = self::REPLY_ADDRESS_TTL, ?\Closure $onTimeout = null): string
    {
        $id = ++$this->nextReply;
        $pending->timer = $this->system->loop->delay($ttl, function () use ($id, $onTimeout): void {
            $pending = $this->replies[$id] ?? null;
            unset($this->replies[$id]);
            if ($pending !== null && $onTimeout !== null) {
                $pending->deferred?->tryReject($onTimeout());
            }
        });
        if ($onTimeout === null) {
            $this->system->loop->unreference($pending->timer);
        }
        $this->replies[$id] = $pending;

        return self::TEMP . $id;
    }

    private function deliverReply(string $path, mixed $message, ?ActorRef $sender): void
    {
        $id = (int) substr($path, \strlen(self::TEMP));
        $pending = $this->replies[$id] ?? null;
        if ($pending === null) {
            $this->system->deadLetters->publish($message, $sender, "worker {$this->id}:{$path}", DeadLetterReason::LateAskReply);

            return;
        }
        $this->settleReply($id);
        if ($pending->deferred !== null) {
            if ($message instanceof RemoteAskFailed) {
                $pending->deferred->tryReject(new RecipientTerminatedException("The ask could not be delivered: {$message->reason}."));
            } else {
                $pending->deferred->tryResolve($message);
            }
        } else {
            $pending->forwardTo?->tell($message, $sender);
        }
    }

    private function failReply(int $id, string $reason): void
    {
        $pending = $this->replies[$id] ?? null;
        if ($pending?->deferred !== null) {
            $this->settleReply($id);
            $pending->deferred->tryReject(new RecipientTerminatedException("The ask could not be delivered: {$reason}"));
        }
    }

    private function settleReply(int $id): void
    {
        $pending = $this->replies[$id] ?? null;
        unset($this->replies[$id]);
        if ($pending?->timer !== null) {
            $this->system->loop->cancel($pending->timer);
        }
    }
}
