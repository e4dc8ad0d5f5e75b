<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Behavior;
use Nexus\Actor\Exception\ActorStoppingException;
use Nexus\Actor\Exception\InvalidActorNameException;
use Nexus\Actor\Props;
use Nexus\Actor\Remote\Endpoint;

/**
 * Entities of one kind (see Workers::kind()): ref($id) addresses the entity with that id on
 * whichever worker owns it; it is started on first use under /user/<kind>/<id>.
 */
final class EntityKind
{
    private const CACHE_LIMIT = 10_000;

    /** @var array<string, ActorRef> */
    private array $refs = [];

    /**
     * @param \Closure(string): (Props|Behavior) $factory
     *
     * @internal built by Workers::kind()
     */
    public function __construct(
        private readonly Workers $workers,
        public readonly string $name,
        private readonly ActorRef $region,
        private readonly \Closure $factory,
    ) {}

    public function ref(string $id): ActorRef
    {
        $ref = $this->refs[$id] ?? null;
        if ($ref instanceof Endpoint && $ref->isTerminated()) {
            $ref = null;
        }
        if ($ref !== null) {
            return $ref;
        }
        if ($id === '' || str_contains($id, '/') || str_starts_with($id, '$')) {
            throw new InvalidActorNameException("'{$id}' cannot be the id of a {$this->name} entity: use a non-empty id without '/' that does not start with '\$'.");
        }
        // In a cluster the ref follows the entity wherever the view places it.
        $placed = $this->workers->placedRef("{$this->region->path()}/{$id}");
        if ($placed !== null) {
            if (\count($this->refs) >= self::CACHE_LIMIT) {
                $this->refs = [];
            }

            return $this->refs[$id] = $placed;
        }
        $owner = $this->workers->ownerOf("{$this->name}/{$id}");
        if ($owner === $this->workers->id) {
            $region = $this->region;
            \assert($region instanceof Endpoint);
            $ref = $region->child($id);
            if ($ref === null) {
                // This worker hands its entities off (a reload): the new worker starts new ones.
                $successor = $this->workers->handedOff("{$this->region->path()}/{$id}");
                if ($successor !== null) {
                    return $successor;
                }
                if ($region->isStopping()) {
                    throw new ActorStoppingException("The {$this->name} entities of this worker are stopping: {$id} cannot start here.");
                }
            }
            $ref ??= $region->spawnChild(($this->factory)($id), $id);
        } else {
            $ref = $this->workers->remoteRef($owner, "{$this->region->path()}/{$id}");
        }
        if (\count($this->refs) >= self::CACHE_LIMIT) {
            $this->refs = [];
        }

        return $this->refs[$id] = $ref;
    }
}
