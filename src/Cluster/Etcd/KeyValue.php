<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

/**
 * A key of etcd as read: its value, the revision that created it (a key deleted and put again
 * has a new one), the revision that last changed it, and the lease it is attached to (0: none).
 */
final readonly class KeyValue
{
    public function __construct(
        public string $key,
        public string $value,
        public int $createRevision,
        public int $modRevision,
        public int $lease,
    ) {}
}
