<?php

declare(strict_types=1);

namespace Nexus\HttpClient;

use Nexus\HttpClient\Exception\ConnectException;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;

/**
 * Resolves host names through the operating system (gethostbynamel(): /etc/hosts, then DNS),
 * caching each answer for $ttl seconds.
 *
 * What blocks: PHP has no asynchronous resolver, so the first request to a host name (and the
 * first after each TTL) blocks the whole worker for as long as the lookup takes: microseconds for
 * /etc/hosts names such as localhost, a DNS round trip otherwise, up to the resolver's timeout
 * (5 s per try in resolv.conf's default) when DNS is down. Every other request to that host costs
 * a cache hit. IP literals never block. To never block, give the client a StaticResolver or a
 * Resolver of your own. Only IPv4 addresses come back (gethostbynamel); use an IPv6 literal in the
 * URL, or a StaticResolver, for IPv6.
 *
 * Bounds: at most $maxEntries names are cached (the oldest is dropped); failed lookups are not
 * cached.
 */
final class SystemResolver implements Resolver
{
    /** @var array<string, array{non-empty-list<string>, float}> host => [addresses, expiry] */
    private array $cache = [];
    private int $lookups = 0;

    /**
     * @param (\Closure(string): (list<string>|false))|null $lookup the blocking lookup
     *                                                              (gethostbynamel by default; tests pass their own)
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly float $ttl = 60.0,
        private readonly int $maxEntries = 1024,
        private readonly ?\Closure $lookup = null,
    ) {
        if (!($ttl >= 0.0) || $maxEntries < 1) {
            throw new Exception\InvalidOptionsException("SystemResolver needs a TTL of 0 s or more and room for at least one name, got {$ttl} s and {$maxEntries}.");
        }
    }

    public function resolve(string $host): Future
    {
        if (filter_var($host, \FILTER_VALIDATE_IP) !== false) {
            return Future::fulfilled($this->loop, [$host]);
        }
        $host = strtolower($host);
        $now = $this->loop->now();
        $cached = $this->cache[$host] ?? null;
        if ($cached !== null && $cached[1] > $now) {
            return Future::fulfilled($this->loop, $cached[0]);
        }
        ++$this->lookups;
        $addresses = $this->lookup !== null ? ($this->lookup)($host) : gethostbynamel($host);
        if ($addresses === false || $addresses === []) {
            unset($this->cache[$host]);

            return Future::rejected($this->loop, new ConnectException("Cannot resolve the host name {$host} (gethostbynamel found no IPv4 address): check the name, /etc/hosts and DNS."));
        }
        unset($this->cache[$host]);
        if (\count($this->cache) >= $this->maxEntries) {
            unset($this->cache[array_key_first($this->cache)]);
        }
        $this->cache[$host] = [$addresses, $now + $this->ttl];

        return Future::fulfilled($this->loop, $this->cache[$host][0]);
    }

    /**
     * Lookups that went to the operating system (cache misses), for tests and metrics.
     */
    public function lookups(): int
    {
        return $this->lookups;
    }
}
