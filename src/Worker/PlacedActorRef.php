<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Message\Traced;
use Nexus\Runtime\Future;
use Nexus\Worker\Internal\Mesh;

/**
 * The address of a named actor or an entity of a cluster: each tell() and ask() goes to wherever
 * the cluster places it now (its owner under this node's view), so a ref stays valid while the
 * actor moves between nodes. Given by Workers::named(), Workers::ref() and EntityKind::ref() in a
 * cluster; in a pool on one machine those give plain refs.
 *
 * It cannot be watched (the actor it names may move; watch what it tells you, its sender, instead).
 */
final class PlacedActorRef implements ActorRef
{
    /**
     * @internal made by Workers and EntityKind
     */
    public function __construct(
        private readonly Mesh $mesh,
        private readonly string $path,
    ) {}

    public function path(): string
    {
        return $this->path;
    }

    public function tell(mixed $message, ?ActorRef $sender = null): void
    {
        $trace = $this->mesh->system->scheduler->trace;
        $this->mesh->sendPlaced($this->path, $trace === null ? $message : new Traced($message, $trace), $sender ?? $this->mesh->system->currentActor());
    }

    public function ask(mixed $message, float $timeout = 5.0): Future
    {
        $trace = $this->mesh->system->scheduler->trace;

        return $this->mesh->askPlaced($this->path, $trace === null ? $message : new Traced($message, $trace), $timeout);
    }

    public function __toString(): string
    {
        return "cluster:{$this->path}";
    }
}
