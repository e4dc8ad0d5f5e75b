<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Actor\ActorSystem;
use Nexus\Actor\Remote\Endpoint;

/**
 * Entity resolution: which local actor a message from another process is for. A path names a
 * live actor of this process, or an entity of a kind declared here (Workers::kind()), which its
 * kind's region (EntityRegion) starts on first use.
 *
 * Endpoints found are remembered (at most CACHE_LIMIT; the cache is emptied when full), so that a
 * stream of messages to a few actors costs one array lookup each.
 *
 * @internal
 */
final class LocalRecipients
{
    /** Local actors found by path kept at most (the cache is emptied when full). */
    private const CACHE_LIMIT = 10_000;

    /**
     * The endpoints found, by path. Public so that the mesh's batch delivery reads it without a
     * call per message; written only here.
     *
     * @var array<string, Endpoint>
     */
    public array $endpoints = [];
    /** @var array<string, \Closure(string): ?Endpoint> the entity of an id (started if need be), by region path */
    private array $kinds = [];

    public function __construct(private readonly ActorSystem $system) {}

    /**
     * @param \Closure(string): ?Endpoint $resolve the entity of that id (started if need be), or null
     */
    public function addKind(string $regionPath, \Closure $resolve): void
    {
        $this->kinds[$regionPath] = $resolve;
    }

    /**
     * The endpoint remembered for $path, live or not (the caller checks), without a lookup.
     */
    public function cached(string $path): ?Endpoint
    {
        return $this->endpoints[$path] ?? null;
    }

    /**
     * The live actor at $path, started first when it is an entity of a declared kind; null when
     * none lives there and none can be started.
     *
     * @throws \Throwable what starting the entity threw (its factory, an invalid name, the limit)
     */
    public function resolve(string $path): ?Endpoint
    {
        unset($this->endpoints[$path]);
        $endpoint = $this->system->endpoint($path);
        if ($endpoint === null) {
            $slash = strrpos($path, '/');
            $entity = $slash === false ? null : ($this->kinds[substr($path, 0, $slash)] ?? null);
            $endpoint = $entity === null ? null : $entity(substr($path, $slash + 1));
            if ($endpoint === null) {
                return null;
            }
        }
        if (\count($this->endpoints) >= self::CACHE_LIMIT) {
            $this->endpoints = [];
        }

        return $this->endpoints[$path] = $endpoint;
    }
}
