<?php

declare(strict_types=1);

namespace Nexus\Persistence\Store\Postgres;

/**
 * The tables of the PostgreSQL store, created on first start (docs/persistence.md shows them).
 * Run as one implicit transaction under an advisory lock, so that several workers starting at
 * once create them once.
 *
 * Offsets come from the one row of nexus_journal_ordering, updated at the start of every write
 * transaction: the row lock it takes serializes the writers, and a transaction is visible before
 * its locks are released, so offsets become visible in commit order: a reader that sees offset N
 * has already been able to see every offset below it (no projection gap).
 *
 * @internal
 */
final class PostgresSchema
{
    public const SQL = <<<'SQL'
        SELECT pg_advisory_xact_lock(7305271101);
        CREATE TABLE IF NOT EXISTS nexus_journal (
            ordering BIGINT NOT NULL,
            persistence_id TEXT NOT NULL,
            sequence_nr BIGINT NOT NULL,
            writer_epoch BIGINT NOT NULL,
            event_name TEXT NOT NULL,
            event_version INT NOT NULL,
            payload_format TEXT NOT NULL,
            payload TEXT NOT NULL,
            tags TEXT NOT NULL,
            written_at BIGINT NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT FALSE,
            PRIMARY KEY (persistence_id, sequence_nr)
        );
        CREATE UNIQUE INDEX IF NOT EXISTS nexus_journal_ordering_idx ON nexus_journal (ordering);
        CREATE TABLE IF NOT EXISTS nexus_journal_ordering (
            id INT PRIMARY KEY,
            last_offset BIGINT NOT NULL
        );
        INSERT INTO nexus_journal_ordering (id, last_offset) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
        CREATE TABLE IF NOT EXISTS nexus_event_tags (
            tag TEXT NOT NULL,
            ordering BIGINT NOT NULL,
            PRIMARY KEY (tag, ordering)
        );
        CREATE TABLE IF NOT EXISTS nexus_snapshots (
            persistence_id TEXT NOT NULL,
            sequence_nr BIGINT NOT NULL,
            state_name TEXT NOT NULL,
            state_version INT NOT NULL,
            payload_format TEXT NOT NULL,
            payload TEXT NOT NULL,
            written_at BIGINT NOT NULL,
            PRIMARY KEY (persistence_id, sequence_nr)
        );
        CREATE TABLE IF NOT EXISTS nexus_durable_state (
            persistence_id TEXT PRIMARY KEY,
            revision BIGINT NOT NULL,
            state_name TEXT NOT NULL,
            state_version INT NOT NULL,
            payload_format TEXT NOT NULL,
            payload TEXT NOT NULL,
            written_at BIGINT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS nexus_projection_offsets (
            projection TEXT PRIMARY KEY,
            last_offset BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        SQL;

    /**
     * A whole batch (at most one write per id) in one statement, outside any transaction block:
     * one round trip. It takes the offset counter's row lock itself and numbers the events from
     * what the UPDATE returns (the latest value once the lock is granted), so offsets still follow
     * the commit order. Its head check reads the snapshot taken when the statement started: a
     * writer that committed to one of these ids while this one waited for the lock makes the
     * insert fail with a unique violation (23505), and the store then redoes the batch with
     * WRITE_EVENTS after taking the lock. Parameters as WRITE_EVENTS.
     */
    public const WRITE_EVENTS_AT_ONCE = self::WRITE_EVENTS_HEAD
        . 'base AS (UPDATE nexus_journal_ordering SET last_offset = last_offset + $16::bigint WHERE id = 1 RETURNING last_offset - $16::bigint AS b), '
        . self::WRITE_EVENTS_TAIL;

    /**
     * One round of a write batch (at most one write per id): refuses writes that do not follow
     * the stored head, inserts the events of the others with offsets base + k, and their tags.
     * Runs inside a transaction that has already taken the offset counter's row lock.
     * Columns come as arrays (unnest is far cheaper for PostgreSQL to read than JSON):
     * writes $1-$4 (index, id, first sequence number, epoch), events $5-$12 (k, write index,
     * sequence number, name, version, format, payload, tags), tags $13-$15 (k, write index,
     * tag), $16 events in the whole batch, $17 written_at.
     */
    public const WRITE_EVENTS = self::WRITE_EVENTS_HEAD
        . 'base AS (SELECT last_offset - $16::bigint AS b FROM nexus_journal_ordering WHERE id = 1), '
        . self::WRITE_EVENTS_TAIL;

    private const WRITE_EVENTS_HEAD = <<<'SQL'
        WITH w AS (
            SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::bigint[]) AS w(i, pid, first, epoch)
        ), h AS (
            SELECT w.i, w.pid, w.first, w.epoch, COALESCE(last.sequence_nr, 0) AS highest, COALESCE(last.writer_epoch, 0) AS last_epoch
            FROM w LEFT JOIN LATERAL (
                SELECT sequence_nr, writer_epoch FROM nexus_journal j WHERE j.persistence_id = w.pid ORDER BY sequence_nr DESC LIMIT 1
            ) last ON TRUE
        ), ok AS (
            SELECT i FROM h WHERE first = highest + 1 AND epoch >= last_epoch
        ),
        SQL;

    private const WRITE_EVENTS_TAIL = <<<'SQL'
        ins AS (
            INSERT INTO nexus_journal (ordering, persistence_id, sequence_nr, writer_epoch, event_name, event_version, payload_format, payload, tags, written_at)
            SELECT base.b + e.k, w.pid, e.seq, w.epoch, e.name, e.ver, e.fmt, e.data, e.tags, $17::bigint
            FROM unnest($5::int[], $6::int[], $7::bigint[], $8::text[], $9::int[], $10::text[], $11::text[], $12::text[]) AS e(k, i, seq, name, ver, fmt, data, tags)
            JOIN ok ON ok.i = e.i JOIN w ON w.i = e.i CROSS JOIN base
            RETURNING 1
        ), t AS (
            INSERT INTO nexus_event_tags (tag, ordering)
            SELECT x.tag, base.b + x.k FROM unnest($13::int[], $14::int[], $15::text[]) AS x(k, i, tag)
            JOIN ok ON ok.i = x.i CROSS JOIN base
            RETURNING 1
        )
        SELECT h.i, h.highest, h.last_epoch FROM h WHERE h.i NOT IN (SELECT i FROM ok)
        SQL;

    /**
     * The events of several ids at once (the recoveries that started in one loop turn): $1 ids,
     * $2 first and $3 last sequence numbers, $4 limits, as arrays; each row carries i, the
     * 1-based position of its read.
     */
    public const READ_EVENTS = <<<'SQL'
        SELECT r.i, j.ordering, j.persistence_id, j.sequence_nr, j.writer_epoch, j.event_name, j.event_version, j.payload_format, j.payload, j.tags, j.written_at
        FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[]) WITH ORDINALITY AS r(pid, from_seq, to_seq, lim, i)
        CROSS JOIN LATERAL (
            SELECT * FROM nexus_journal j
            WHERE j.persistence_id = r.pid AND j.sequence_nr >= r.from_seq AND j.sequence_nr <= r.to_seq AND NOT j.deleted
            ORDER BY j.sequence_nr LIMIT r.lim
        ) j
        ORDER BY r.i, j.sequence_nr
        SQL;

    /**
     * One round of durable-state writes (at most one per id): $1 states (JSON), $2 written_at.
     */
    public const WRITE_STATES = <<<'SQL'
        WITH s AS (
            SELECT * FROM json_to_recordset($1::json) AS s(i int, pid text, rev bigint, name text, ver int, fmt text, data text)
        ), ins AS (
            INSERT INTO nexus_durable_state (persistence_id, revision, state_name, state_version, payload_format, payload, written_at)
            SELECT pid, rev, name, ver, fmt, data, $2::bigint FROM s WHERE rev = 1
            ON CONFLICT (persistence_id) DO NOTHING
            RETURNING persistence_id
        ), upd AS (
            UPDATE nexus_durable_state d SET revision = s.rev, state_name = s.name, state_version = s.ver, payload_format = s.fmt, payload = s.data, written_at = $2::bigint
            FROM s WHERE s.rev > 1 AND d.persistence_id = s.pid AND d.revision = s.rev - 1
            RETURNING d.persistence_id
        )
        SELECT s.i, COALESCE(cur.revision, 0) AS revision FROM s LEFT JOIN nexus_durable_state cur ON cur.persistence_id = s.pid
        WHERE s.pid NOT IN (SELECT persistence_id FROM ins UNION ALL SELECT persistence_id FROM upd)
        SQL;

    /**
     * One round of snapshot saves (at most one per id): $1 snapshots (JSON), $2 written_at.
     */
    public const SAVE_SNAPSHOTS = <<<'SQL'
        INSERT INTO nexus_snapshots (persistence_id, sequence_nr, state_name, state_version, payload_format, payload, written_at)
        SELECT pid, seq, name, ver, fmt, data, $2::bigint
        FROM json_to_recordset($1::json) AS s(pid text, seq bigint, name text, ver int, fmt text, data text)
        ON CONFLICT (persistence_id, sequence_nr) DO UPDATE SET state_name = EXCLUDED.state_name, state_version = EXCLUDED.state_version,
            payload_format = EXCLUDED.payload_format, payload = EXCLUDED.payload, written_at = EXCLUDED.written_at
        SQL;

    /**
     * Keeps the $2 latest snapshots of each id in $1 (JSON array of ids) and returns the oldest kept.
     */
    public const PRUNE_SNAPSHOTS = <<<'SQL'
        WITH ids AS (
            SELECT DISTINCT value AS pid FROM json_array_elements_text($1::json)
        ), doomed AS (
            DELETE FROM nexus_snapshots s USING ids
            WHERE s.persistence_id = ids.pid AND s.sequence_nr < (
                SELECT sequence_nr FROM nexus_snapshots k WHERE k.persistence_id = ids.pid ORDER BY sequence_nr DESC LIMIT 1 OFFSET $2::int
            )
            RETURNING s.persistence_id, s.sequence_nr
        )
        SELECT ids.pid, (
            SELECT MIN(sequence_nr) FROM nexus_snapshots k WHERE k.persistence_id = ids.pid
            AND NOT EXISTS (SELECT 1 FROM doomed WHERE doomed.persistence_id = k.persistence_id AND doomed.sequence_nr = k.sequence_nr)
        ) AS oldest FROM ids
        SQL;
}
