<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Internal\ActorCell;
use Nexus\Actor\Internal\LocalActorRef;
use Nexus\Actor\Internal\RemoteWatchable;
use Nexus\Runtime\Future;
use Nexus\Worker\Internal\Mesh;

/**
 * The address of an actor on another worker of the pool. tell() and ask() go through the link to
 * that worker; the path is the actor's path there. An actor can watch() it: Terminated arrives
 * when it stops, or when its worker is lost.
 */
final class RemoteActorRef implements RemoteWatchable
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
        if ($sender === null) {
            $current = $this->mesh->system->scheduler->current;
            if ($current instanceof ActorCell) {
                $sender = $current->ref;
            }
        }
        $this->mesh->send($this->worker, $this->path, $message, $sender);
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        return $this->mesh->ask($this->worker, $this->path, $message, $timeout);
    }

    public function watchKey(): string
    {
        return $this->worker . ':' . $this->path;
    }

    public function watchFrom(LocalActorRef $watcher): void
    {
        $this->mesh->watch($this, $watcher);
    }

    public function unwatchFrom(LocalActorRef $watcher): void
    {
        $this->mesh->unwatch($this, $watcher);
    }

    public function __toString(): string
    {
        return "worker {$this->worker}:{$this->path}";
    }
}
