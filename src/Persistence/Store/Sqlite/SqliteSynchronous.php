<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Sqlite;

/**
 * How durable a commit is, in WAL mode. Full (the default) syncs the log after every commit,
 * before the store acknowledges it: a commit that was acknowledged survives a power loss. (The
 * store syncs it itself, right after the commit has released the write lock, so that other
 * workers need not wait for the sync; SQLite runs with `synchronous=NORMAL` underneath.) Normal
 * syncs only at checkpoints: faster, and the database stays consistent, but the last transactions
 * before a power loss (not a process crash) can be lost, so an acknowledged write may disappear.
 */
enum SqliteSynchronous: string
{
    case Full = 'FULL';
    case Normal = 'NORMAL';
}
