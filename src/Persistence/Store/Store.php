<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store;

/**
 * One place that keeps everything persistence needs: the journal, snapshots, durable states and
 * projection offsets (InMemoryStore, SqliteStore, PostgresStore).
 */
interface Store extends Journal, SnapshotStore, DurableStateStore, OffsetStore {}
