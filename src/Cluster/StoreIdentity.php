<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Persistence\Exception\ConcurrentWriteException;
use Nexus\Persistence\Store\AtomicWrite;
use Nexus\Persistence\Store\Payload;
use Nexus\Persistence\Store\PayloadFormat;
use Nexus\Persistence\Store\PersistedEvent;
use Nexus\Persistence\Store\Store;

/**
 * The identity of a durable-actors store: a random id its first user wrote into it (one event of
 * the persistence id IDENTITY, through the journal contract every store keeps), so two nodes can
 * tell whether they write to the same store however each names it (a path, a URL). A cluster
 * records the identity of its store in etcd; a node whose store has another is refused at join.
 */
final class StoreIdentity
{
    public const IDENTITY = 'nexus-cluster|store-identity';
    private const EVENT = 'nexus.cluster.store-identity';

    private function __construct() {}

    /**
     * The store's identity, written first when it has none. Awaits (call it from a fiber or
     * top-level code).
     *
     * @throws \Nexus\Persistence\Exception\PersistenceException when the store cannot be read or written
     */
    public static function of(Store $store): string
    {
        $mine = bin2hex(random_bytes(16));
        $results = $store->writeEvents([new AtomicWrite(self::IDENTITY, 1, 1, [new Payload(self::EVENT, 1, PayloadFormat::Json, json_encode(['id' => $mine], \JSON_THROW_ON_ERROR))])])->await();
        $refused = $results[0] ?? null;
        if ($refused === null) {
            return $mine;
        }
        if (!$refused instanceof ConcurrentWriteException) {
            throw $refused;
        }
        $events = $store->readEvents(self::IDENTITY, 1, 1, 1)->await();
        $first = $events[0] ?? null;
        $data = $first instanceof PersistedEvent ? json_decode($first->data, true) : null;
        if (!\is_array($data) || !\is_string($data['id'] ?? null)) {
            throw new \UnexpectedValueException('The store holds a malformed identity (' . self::IDENTITY . '); it was not written by Nexus.');
        }

        return $data['id'];
    }
}
