<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Sqlite;

/**
 * The tables of the SQLite store, created on first use (docs/persistence.md shows them).
 *
 * The journal is a rowid table whose rowid is the global offset, assigned inside the write
 * transaction: SQLite has one writer at a time, so offsets are in commit order. (persistence_id,
 * sequence_nr) is unique; `deleted` marks the one event kept as the highest sequence number
 * after all of an id's events were deleted.
 *
 * @internal
 */
final class SqliteSchema
{
    public const VERSION = 1;

    /** @var list<string> */
    public const STATEMENTS = [
        'CREATE TABLE IF NOT EXISTS nexus_journal (
            ordering INTEGER PRIMARY KEY,
            persistence_id TEXT NOT NULL,
            sequence_nr INTEGER NOT NULL,
            writer_epoch INTEGER NOT NULL,
            event_name TEXT NOT NULL,
            event_version INTEGER NOT NULL,
            payload_format TEXT NOT NULL,
            payload TEXT NOT NULL,
            tags TEXT NOT NULL,
            written_at INTEGER NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            UNIQUE (persistence_id, sequence_nr)
        )',
        'CREATE TABLE IF NOT EXISTS nexus_event_tags (
            tag TEXT NOT NULL,
            ordering INTEGER NOT NULL,
            PRIMARY KEY (tag, ordering)
        ) WITHOUT ROWID',
        'CREATE TABLE IF NOT EXISTS nexus_snapshots (
            persistence_id TEXT NOT NULL,
            sequence_nr INTEGER NOT NULL,
            state_name TEXT NOT NULL,
            state_version INTEGER NOT NULL,
            payload_format TEXT NOT NULL,
            payload TEXT NOT NULL,
            written_at INTEGER NOT NULL,
            PRIMARY KEY (persistence_id, sequence_nr)
        ) WITHOUT ROWID',
        'CREATE TABLE IF NOT EXISTS nexus_durable_state (
            persistence_id TEXT NOT NULL PRIMARY KEY,
            revision INTEGER NOT NULL,
            state_name TEXT NOT NULL,
            state_version INTEGER NOT NULL,
            payload_format TEXT NOT NULL,
            payload TEXT NOT NULL,
            written_at INTEGER NOT NULL
        ) WITHOUT ROWID',
        'CREATE TABLE IF NOT EXISTS nexus_projection_offsets (
            projection TEXT NOT NULL PRIMARY KEY,
            last_offset INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID',
    ];
}
