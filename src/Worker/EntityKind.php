<?php

declare(strict_types=1);

namespace Nexus\Worker;

use Nexus\Actor\ActorRef;
use Nexus\Actor\Exception\InvalidActorNameException;
use Nexus\Actor\Remote\Endpoint;
use Nexus\Worker\Exception\EntityLimitException;
use Nexus\Worker\Internal\EntityRegion;

/**
 * Entities of one kind (see Workers::kind()): ref($id) addresses the entity with that id on
 * whichever worker owns it; it is started on first use under /user/<kind>/<id>, passivated when
 * idle or to make room (EntitySettings), and started again by its next message. A message that
 * reaches an entity while it stops is delivered to its next incarnation, in order.
 */
final class EntityKind
{
    private const CACHE_LIMIT = 10_000;

    /** @var array<string, ActorRef> */
    private array $refs = [];

    /**
     * @internal built by Workers::kind()
     */
    public function __construct(
        private readonly Workers $workers,
        public readonly string $name,
        private readonly EntityRegion $region,
    ) {}

    /**
     * @throws InvalidActorNameException an id that cannot name an entity
     * @throws EntityLimitException      the entity lives on this worker, which has maxActive of this
     *                                   kind alive and none idle to make room (transient)
     */
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
            $ref = $this->region->resolve($id);
            if (!$ref instanceof Endpoint) {
                return $ref; // this worker hands its entities off (a reload): the new worker takes it
            }
        } else {
            $ref = $this->workers->remoteRef($owner, "{$this->region->path()}/{$id}");
        }
        if (\count($this->refs) >= self::CACHE_LIMIT) {
            $this->refs = [];
        }

        return $this->refs[$id] = $ref;
    }

    /**
     * Entities of this kind alive on this worker (those stopping included, until they have).
     */
    public function activeCount(): int
    {
        return $this->region->count();
    }

    public function settings(): EntitySettings
    {
        return $this->region->settings;
    }
}
