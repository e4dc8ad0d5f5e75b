<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorRef;
use Nexus\Actor\ActorSystem;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\InvalidActorNameException;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Worker\Codec\MessageClasses;
use Nexus\Worker\Internal\EntityRegion;
use Nexus\Worker\Internal\Mesh;

/**
 * The worker pool as one worker sees it: which worker this is, and actors that are reachable from
 * every worker (of every node, in a cluster).
 *
 * A named actor lives on exactly one worker, chosen by rendezvous hashing of its name, so every
 * worker finds it without a shared table. In a cluster it is one slot (a worker of a node) of the
 * cluster's current view, and refs to named actors and entities follow them when the view changes
 * (PlacedActorRef): an application file runs unchanged on one worker, one machine or many. Declare named actors and entity kinds the same way on
 * every worker (an application file does, as it runs on each); actors spawned with
 * ActorSystem::spawn() stay local to their worker, one per worker, which suits caches and pools.
 *
 *     $orders = $workers->named('orders', Behavior::receive(...));            // on one worker
 *     $counters = $workers->kind('counter', fn(string $id) => counter());     // spread over all
 *     $counters->ref('apples')->tell('increment');
 *
 * Objects sent to another worker must be of classes registered with registerMessage().
 */
final class Workers
{
    private function __construct(
        private readonly ActorSystem $system,
        public readonly int $id,
        public readonly int $count,
        private readonly ?Mesh $mesh,
        private readonly MessageClasses $classes,
    ) {}

    /**
     * A pool of one: everything is local. Applications written for the pool run unchanged.
     */
    public static function single(ActorSystem $system): self
    {
        return new self($system, 0, 1, null, new MessageClasses());
    }

    /**
     * @internal the worker pool builds this for each worker
     */
    public static function meshed(Mesh $mesh, MessageClasses $classes): self
    {
        return new self($mesh->system, $mesh->worker, $mesh->count, $mesh, $classes);
    }

    /**
     * Allows objects of these classes to be sent to actors on other workers. Register the same
     * classes on every worker.
     *
     * @param class-string ...$classes
     */
    public function registerMessage(string ...$classes): void
    {
        $this->classes->register(...$classes);
    }

    /**
     * The worker a name belongs to: in a cluster, the slot (see Slots) that owns it under this
     * node's current view, -1 while this node has none (it has not joined yet, or is fenced).
     */
    public function ownerOf(string $name): int
    {
        $placements = $this->mesh?->placements;
        if ($placements !== null) {
            return $placements->ownerOf($name) ?? -1;
        }

        return $this->count === 1 ? 0 : RendezvousHash::owner($name, max(1, $this->count));
    }

    /**
     * Whether this worker is part of a cluster of nodes (nexus serve --cluster).
     */
    public function isClustered(): bool
    {
        return $this->mesh?->placements !== null;
    }

    /**
     * Every slot of the pool (its worker numbers), or of the cluster's current view (the workers
     * of every node not leaving; empty while this node has none).
     *
     * @return list<int>
     */
    public function slots(): array
    {
        $placements = $this->mesh?->placements;
        if ($placements !== null) {
            return $placements->view()->slots ?? [];
        }

        return range(0, $this->count - 1);
    }

    /**
     * The actor at $path on slot $slot (see slots()): the local actor on this worker's own slot
     * (or null: none lives there), else a reference that delivers there.
     */
    public function atSlot(int $slot, string $path): ?ActorRef
    {
        if ($slot === $this->slot() || $this->mesh === null) {
            return $this->system->lookup($path);
        }

        return $this->mesh->remoteRef($slot, $path);
    }

    /**
     * This worker's slot (see Slots): (node << 8) | worker; its worker number outside a cluster.
     */
    public function slot(): int
    {
        return $this->mesh->id ?? 0;
    }

    /**
     * Declares a named actor: the worker that owns $name starts it under /user/$name, every other
     * worker gets a reference to it there (and ActorSystem::lookup('/user/$name') and
     * #[Actor('$name')] in handlers find it on every worker).
     */
    public function named(string $name, Props|Behavior $props): ActorRef
    {
        self::checkName($name);
        $mesh = $this->mesh;
        $placements = $mesh?->placements;
        if ($mesh !== null && $placements !== null) {
            $ref = new PlacedActorRef($mesh, "/user/{$name}");
            $this->system->alias("/user/{$name}", $ref);
            $mesh->handOff->place($name, null);
            $placements->declareNamed($name, $props);

            return $ref;
        }
        $owner = $this->ownerOf($name);
        if ($owner === $this->id) {
            $ref = $this->system->spawn($this->mesh?->handOff->gated($props) ?? $props, $name);
            $this->mesh?->handOff->place($name, $ref instanceof Endpoint ? $ref : null);

            return $ref;
        }
        $ref = $this->remoteRef($owner, "/user/{$name}");
        $this->system->alias("/user/{$name}", $ref);

        return $ref;
    }

    /**
     * The reference to a named actor declared with named(), from any worker.
     */
    public function ref(string $name): ActorRef
    {
        self::checkName($name);
        if ($this->mesh?->placements !== null) {
            return new PlacedActorRef($this->mesh, "/user/{$name}");
        }
        $owner = $this->ownerOf($name);
        if ($owner === $this->id) {
            return $this->system->lookup("/user/{$name}")
                ?? $this->handedOff("/user/{$name}")
                ?? throw new InvalidActorNameException("No named actor '{$name}' runs on its worker ({$owner}): declare it with Workers::named() first.");
        }

        return $this->remoteRef($owner, "/user/{$name}");
    }

    /**
     * Declares a kind of entity: many actors of one behavior, one per id, each placed on the
     * worker that owns "$kind/$id" and started there when its first message arrives. An entity
     * idle for $settings->idleTimeout is passivated (stopped; a persistent one after its write
     * in flight) and started again by its next message; at most $settings->maxActive are alive
     * per worker (see EntitySettings). No message is lost to a passivation: what reaches an
     * entity while it stops goes to its next incarnation, in order.
     *
     * @param \Closure(string): (Props|Behavior) $factory the behavior of the entity with that id
     */
    public function kind(string $kind, \Closure $factory, EntitySettings $settings = new EntitySettings()): EntityKind
    {
        self::checkName($kind);
        $mesh = $this->mesh;
        $placements = $mesh?->placements;
        if ($mesh !== null) {
            // A cluster's entities start with the revision of the view they were placed under
            // (their placement epoch); outside one they are only held during a hand-off.
            $inner = $factory;
            $factory = $placements !== null
                ? static fn(string $id): Props|Behavior => $mesh->handOff->gated($placements->placed($inner($id)))
                : static fn(string $id): Props|Behavior => $mesh->handOff->gated($inner($id));
        }
        $region = new EntityRegion($this, $this->system, $kind, $factory, $settings);
        $ref = $this->system->spawn($region->behavior(), $kind);
        $endpoint = $this->system->endpoint($ref->path());
        \assert($endpoint !== null);
        $region->attach($endpoint);
        if ($mesh !== null) {
            $mesh->addKind($ref->path(), $region->local(...));
            $mesh->handOff->place($kind, $endpoint);
            $placements?->declareKind($kind);
        }

        return new EntityKind($this, $kind, $region);
    }

    /**
     * The actor at $path on worker $worker, such as the worker-local cache every worker spawns at
     * /user/cache. On this worker it is the local actor (or null: none lives there); on another
     * worker a reference that delivers there (to dead letters if nothing lives there then).
     */
    public function at(int $worker, string $path): ?ActorRef
    {
        if ($worker < 0 || $worker >= $this->count) {
            throw new \OutOfRangeException("No worker {$worker}: the pool has workers 0 to " . ($this->count - 1) . '.');
        }
        if ($worker === $this->id || $this->mesh === null) {
            return $this->system->lookup($path);
        }

        return $this->mesh->remoteRef($worker, $path);
    }

    /**
     * Where a message for $path (a named actor or entity of this worker) goes once this worker
     * has handed its actors off to the worker replacing it; null when it has not.
     *
     * @internal
     */
    public function handedOff(string $path): ?ActorRef
    {
        $mesh = $this->mesh;
        if ($mesh === null || !$mesh->handOff->isHandingOff()) {
            return null;
        }

        return $mesh->remoteRef(Mesh::SUCCESSOR, $path);
    }

    /**
     * The ref a cluster gives to the placed actor at $path (/user/<name>, /user/<kind>/<id>).
     *
     * @internal used by EntityKind
     */
    public function placedRef(string $path): ?ActorRef
    {
        return $this->mesh?->placements !== null ? new PlacedActorRef($this->mesh, $path) : null;
    }

    /**
     * In a cluster, whether the placed actor at $path (/user/...) belongs to another slot under
     * this worker's view, or to none (fenced); always false outside a cluster.
     *
     * @internal used by the entity regions
     */
    public function placedElsewhere(string $path): bool
    {
        $placements = $this->mesh?->placements;

        return $placements !== null && $placements->ownerOf(substr($path, 6)) !== $this->slot();
    }

    /**
     * In a cluster, whether the placed actor at $path is stopping here because it moved: what it
     * had queued goes to its new owner ahead of the rest.
     *
     * @internal used by the entity regions
     */
    public function isMovingAway(string $path): bool
    {
        return $this->mesh?->placements?->isMoving($path) ?? false;
    }

    /**
     * @internal
     */
    public function remoteRef(int $worker, string $path): ActorRef
    {
        if ($this->mesh === null) {
            throw new \LogicException("No worker {$worker} in a pool of one.");
        }

        return $this->mesh->remoteRef($worker, $path);
    }

    private static function checkName(string $name): void
    {
        if ($name === '' || str_contains($name, '/') || str_starts_with($name, '$')) {
            throw new InvalidActorNameException("'{$name}' cannot name an actor reachable from every worker: use a non-empty name without '/' that does not start with '\$'.");
        }
    }
}
