<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Sqlite;

/**
 * SQLite's `PRAGMA synchronous` in WAL mode. Full (the default) syncs the log at every commit: a
 * commit that was acknowledged survives a power loss. Normal syncs only at checkpoints: faster,
 * and the database stays consistent, but the last transactions before a power loss (not a
 * process crash) can be lost, so an acknowledged write may disappear.
 */
enum SqliteSynchronous: string
{
    case Full = 'FULL';
    case Normal = 'NORMAL';
}
