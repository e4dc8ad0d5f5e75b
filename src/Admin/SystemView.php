<?php

declare(strict_types=1);

namespace Nexus\Admin;

/**
 * What the dashboard, `nexus top` and /readyz see of a running system, as plain arrays (cheap to
 * encode, and to send from a worker to the master). One implementation per shape of system:
 * ActorSystemView for one process; the worker pool's master merges its workers' views.
 *
 * Every method is called about once a second while someone watches, on the loop: it must return
 * quickly and never wait. Every list is bounded by the caller's $limit or by the implementation
 * (say how much in its class comment). A figure the implementation cannot know is null, and the
 * page shows a dash.
 */
interface SystemView
{
    /**
     * One row per worker process (one for a single process).
     *
     * @return list<array{id: string, pid: int, up: bool, cpuSeconds: float, rssBytes: int, requests: int|null, restarts: int, startedAt: float}>
     */
    public function workers(): array;

    /**
     * Actors, parents before children, whose path contains $filter ('' for all), at most $limit
     * of them; `total` counts all that matched. `kind` is the actor's kind (its class or props
     * label) or '' when unknown; `mailbox` the messages waiting; `processed` the messages
     * handled so far (the page turns it into a rate).
     *
     * @return array{nodes: list<array{path: string, worker: string, kind: string, mailbox: int|null, processed: int|null}>, total: int}
     */
    public function actors(string $filter, int $limit): array;

    /**
     * The most recent dead letters, oldest first, at most $limit; `seq` increases by one per dead
     * letter, so a gap says how many were not kept.
     *
     * @return list<array{seq: int, at: float, worker: string, recipient: string, reason: string, message: string, sender: string}>
     */
    public function deadLetters(int $limit): array;

    /**
     * Connection pools (PostgreSQL, Redis), one row per pool per worker.
     *
     * @return list<array{name: string, worker: string, kind: string, open: int, inUse: int, waiting: int, max: int}>
     */
    public function pools(): array;

    /**
     * The cluster as this node sees it, or null when the system is not clustered: this node's
     * name, incarnation and state (joining, member, fenced, leaving; `detail` says why), the
     * view's revision and whether it is settled, and its members in incarnation order (bounded
     * by the implementation; `total` counts all), this node's row marked `self`.
     *
     * @return array{node: string, incarnation: int, state: string, detail: string, revision: int, settled: bool, total: int, members: list<array{node: string, incarnation: int, address: string, workers: int, self: bool, state: string}>}|null
     */
    public function cluster(): ?array;
}
