<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

/**
 * One change seen by a watch: a key put (created or changed) or deleted, at $kv->modRevision.
 */
final readonly class WatchEvent
{
    public function __construct(
        public bool $deleted,
        public KeyValue $kv,
    ) {}
}
