<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Event\DeadLetterReason;
use Nexus\Actor\Message\Traced;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Actor\Remote\RemoteWatchable;
use Nexus\Actor\ReplyAddress;
use Nexus\Runtime\Future;
use Nexus\Worker\Internal\Mesh;
use Nexus\Worker\Internal\ReplyAddresses;

/**
 * The address of an actor on another worker of the pool. tell() and ask() go through the link to
 * that worker; the path is the actor's path there. An actor can watch() it: Terminated arrives
 * when it stops, or when its worker is lost.
 *
 * The sender of a remote ask arrives as a RemoteActorRef to a /temp/g<generation>.<n> address of
 * the asking worker: when the message becomes a dead letter here, that asker is told at once
 * (undeliverable()), so its ask fails with the reason instead of timing out.
 */
final class RemoteActorRef implements RemoteWatchable, ReplyAddress
{
    /**
     * @internal refs come from Workers and EntityKind
     */
    public function __construct(
        private readonly Mesh $mesh,
        public readonly int $worker,
        private readonly string $path,
    ) {}

    public function path(): string
    {
        return $this->path;
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        // A reply to an asker (a /temp address) is never wrapped: the ask's future gets the message.
        if ($this->mesh->system->scheduler->trace !== null && !str_starts_with($this->path, ReplyAddresses::PREFIX)) {
            $message = new Traced($message, $this->mesh->system->scheduler->trace);
        }
        $this->mesh->send($this->worker, $this->path, $message, $sender ?? $this->mesh->system->currentActor());
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        $trace = $this->mesh->system->scheduler->trace;

        return $this->mesh->ask($this->worker, $this->path, $trace === null ? $message : new Traced($message, $trace), $timeout);
    }

    public function undeliverable(DeadLetterReason $reason, string $recipient): void
    {
        if (str_starts_with($this->path, ReplyAddresses::PREFIX) && $reason !== DeadLetterReason::LateAskReply && $reason !== DeadLetterReason::NoSender) {
            $this->mesh->notifyAsker($this, $reason, "{$recipient} on " . Slots::describe($this->mesh->id) . ": {$reason->value}");
        }
    }

    /**
     * A remote asker's ask settles on its own worker: nothing here learns of it.
     */
    public function whenSettled(\Closure $then): void {}

    public function watchKey(): string
    {
        return $this->worker . ':' . $this->path;
    }

    public function watchFrom(Endpoint $watcher): void
    {
        $this->mesh->watch($this, $watcher);
    }

    public function unwatchFrom(Endpoint $watcher): void
    {
        $this->mesh->unwatch($this, $watcher);
    }

    public function __toString(): string
    {
        return "worker {$this->worker}:{$this->path}";
    }
}
