<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

/**
 * A lease etcd granted: its id and the seconds it lasts without a keep-alive.
 */
final readonly class Lease
{
    public function __construct(
        public int $id,
        public int $ttl,
    ) {}
}
