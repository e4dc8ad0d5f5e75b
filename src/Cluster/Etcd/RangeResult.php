<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

/**
 * The keys of a range read and the store's revision when it was read: a watch from $revision + 1
 * sees every change after it.
 */
final readonly class RangeResult
{
    /**
     * @param list<KeyValue> $kvs
     */
    public function __construct(
        public int $revision,
        public array $kvs,
    ) {}
}
