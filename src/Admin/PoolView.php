<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Cluster\ClusterNode;
use Nexus\Cluster\MemberState;
use Nexus\Metrics\Aggregation;
use Nexus\Metrics\Registry;
use Nexus\Metrics\Snapshot;
use Nexus\Metrics\WorkerSnapshots;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Exception\TimeoutException;
use Nexus\Runtime\Loop;
use Nexus\Worker\WorkerPool;

/**
 * The master's view of a worker pool, behind its admin listener: it asks every worker for its
 * stats over the worker's control channel (WorkerPool::collectStats(); each worker answers with
 * ServedObservability::payload()), keeps the last answer of each, and serves:
 *
 * - metrics(): every worker's registry merged (WorkerSnapshots: summed counters never go back
 *   when a worker is replaced; gauges and per-worker counters get a `worker` label), plus per
 *   slot from the master's own supervision: nexus_worker_up, nexus_worker_restarts_total and
 *   nexus_worker_stats_missing_total (queries a worker did not answer in time);
 * - the SystemView: worker rows (pid, up and restarts from the master; CPU, RSS and requests from
 *   the worker's last answer), every worker's actors, dead letters (merged by time) and pools;
 *   for a node of a cluster ($cluster) its membership (ClusterNode::membership(), at most
 *   ClusterNode::MAX_MEMBERS_SHOWN members) and the gauges nexus_cluster_members{state},
 *   nexus_cluster_view_revision, nexus_cluster_incarnation and nexus_cluster_state{state}
 *   (labels bounded by MemberState, never one series per member).
 *
 * Bounds: one query at a time; a caller in a fiber waits for it at most $timeout (default 1 s)
 * per query, all workers asked at once, so one stuck worker costs that much and shows its last
 * figures (and up=0 if it died); answers are reused for $maxAge seconds (0.5), so scrapes and
 * dashboards at any rate ask the workers at most twice a second. An answer is bounded by
 * WorkerPool::MAX_STATS_BYTES, and holds at most Feed::MAX_ACTORS actors per worker (the dashboard
 * shows those: search narrows within them). A caller outside a fiber (a timer) gets the last
 * answers and starts a refresh.
 *
 * @phpstan-import-type Families from Snapshot
 */
final class PoolView implements SystemView
{
    private readonly WorkerSnapshots $snapshots;
    /** The node's gauges (nexus_cluster_*), for a node of a cluster */
    private readonly ?Registry $clusterMetrics;
    /** @var array<int, array<mixed>> the last view of each slot */
    private array $views = [];
    /** @var array<int, array{incarnation: string, families: Families}> */
    private array $families = [];
    /** @var array<int, bool> whether the slot answered the last query */
    private array $answered = [];
    /** @var array<int, int> */
    private array $missing = [];
    /** @var array<int, Registry> the master's figures per slot */
    private array $slotRegistries = [];
    private float $collectedAt = -\INF;
    /** @var Deferred<null>|null */
    private ?Deferred $collecting = null;

    public function __construct(
        private readonly WorkerPool $pool,
        private readonly float $timeout = 1.0,
        private readonly float $maxAge = 0.5,
        private readonly ?ClusterNode $cluster = null,
    ) {
        if (!($timeout > 0.0) || $maxAge < 0.0) {
            throw new \InvalidArgumentException("A pool view needs a timeout above 0 and a max age of 0 or more seconds, got {$timeout} and {$maxAge}.");
        }
        $this->snapshots = new WorkerSnapshots();
        $this->clusterMetrics = $cluster === null ? null : self::clusterRegistry($cluster);
    }

    /**
     * The master's gauges of a node of a cluster; bounded labels only (a state, never a member).
     */
    private static function clusterRegistry(ClusterNode $cluster): Registry
    {
        $registry = new Registry();
        $registry->gaugeCallback('nexus.cluster.members', "Members of this node's current view of the cluster, by state (joining: has not applied the view that added it yet; leaving: handing its entities off).", static function () use ($cluster): array {
            $counts = [MemberState::Joining->value => 0, MemberState::Member->value => 0, MemberState::Fenced->value => 0, MemberState::Leaving->value => 0];
            foreach ($cluster->membership()['members'] as $member) {
                ++$counts[$member['state']];
            }
            $rows = [];
            foreach ($counts as $state => $count) {
                $rows[] = [[$state], $count];
            }

            return $rows;
        }, ['state'], '{member}');
        $registry->gaugeCallback('nexus.cluster.view_revision', "The etcd revision of this node's current view of the cluster (0 before it has one).", static fn(): int => $cluster->membership()['revision']);
        $registry->gaugeCallback('nexus.cluster.incarnation', "This node's incarnation: the etcd revision it joined at (0 before it has joined; a new one after it was fenced and joined again).", static fn(): int => $cluster->node());
        $registry->gaugeCallback('nexus.cluster.state', 'Where this node stands: 1 for its state (joining, member, fenced, leaving), 0 for the others.', static function () use ($cluster): array {
            $now = $cluster->state();
            $rows = [];
            foreach (MemberState::cases() as $state) {
                $rows[] = [[$state->value], $state === $now ? 1 : 0];
            }

            return $rows;
        }, ['state']);

        return $registry;
    }

    private function loop(): Loop
    {
        return $this->pool->loop();
    }

    /**
     * The merged metrics of every worker (for AdminServer).
     *
     * @return array{families: Families}
     */
    public function metrics(): array
    {
        $this->refresh();
        $merged = $this->snapshots->merged();
        if ($this->clusterMetrics !== null) {
            foreach ($this->clusterMetrics->snapshot()['families'] as $name => $family) {
                if (str_starts_with($name, 'nexus_cluster_')) {
                    $merged['families'][$name] = $family;
                }
            }
        }

        return $merged;
    }

    /**
     * Asks the workers again unless the last answers are younger than $maxAge; in a fiber, waits
     * for the answers (at most the timeout).
     */
    public function refresh(): void
    {
        if ($this->collecting === null && $this->loop()->now() - $this->collectedAt >= $this->maxAge) {
            $collecting = $this->collecting = new Deferred($this->loop());
            $this->pool->collectStats('metrics', $this->timeout, function (array $answers) use ($collecting): void {
                $this->absorb($answers);
                $this->collectedAt = $this->loop()->now();
                $this->collecting = null;
                $collecting->resolve(null);
            });
        }
        if ($this->collecting !== null && \Fiber::getCurrent() !== null) {
            try {
                $this->collecting->future()->await($this->timeout + 1.0);
            } catch (TimeoutException) {
                // collectStats() settles at its own timeout; should it not, the last answers serve.
            }
        }
    }

    /**
     * Whether every slot has a ready worker that answered the last query, and why not.
     *
     * @return array{bool, string}
     */
    public function workersUp(): array
    {
        $this->refresh();
        $states = $this->pool->workerStates();
        $down = [];
        foreach ($states as $state) {
            if ($state['pid'] === 0 || !$state['ready']) {
                $down[] = "worker {$state['slot']} is not running";
            } elseif (!($this->answered[$state['slot']] ?? false)) {
                $down[] = \sprintf('worker %d (pid %d) did not answer within %s s', $state['slot'], $state['pid'], $this->timeout);
            }
        }
        $up = \count($states) - \count($down);

        return [$down === [], $down === [] ? "{$up}/" . \count($states) . ' up' : "{$up}/" . \count($states) . ' up; ' . implode('; ', $down)];
    }

    public function workers(): array
    {
        $this->refresh();
        $rows = [];
        foreach ($this->pool->workerStates() as $state) {
            $slot = $state['slot'];
            $reported = $this->views[$slot]['workers'] ?? null;
            $reported = \is_array($reported) && \is_array($reported[0] ?? null) ? $reported[0] : [];
            $same = ($reported['pid'] ?? null) === $state['pid'];
            $rows[] = [
                'id' => (string) $slot,
                'pid' => $state['pid'],
                'up' => $state['pid'] !== 0 && $state['ready'] && ($this->answered[$slot] ?? false),
                'cpuSeconds' => $same && \is_float($reported['cpuSeconds'] ?? null) ? $reported['cpuSeconds'] : 0.0,
                'rssBytes' => $same && \is_int($reported['rssBytes'] ?? null) ? $reported['rssBytes'] : 0,
                'requests' => $same && \is_int($reported['requests'] ?? null) ? $reported['requests'] : null,
                'restarts' => $state['restarts'],
                'startedAt' => round($state['startedAt'] > 1e9 ? $state['startedAt'] : microtime(true) - ($this->loop()->now() - $state['startedAt']), 3),
            ];
        }

        return $rows;
    }

    public function actors(string $filter, int $limit): array
    {
        $this->refresh();
        $nodes = [];
        $total = 0;
        foreach ($this->views as $slot => $view) {
            $actors = $view['actors'] ?? null;
            if (!\is_array($actors) || !\is_array($actors['nodes'] ?? null)) {
                continue;
            }
            if ($filter === '' && \is_int($actors['total'] ?? null)) {
                $total += $actors['total'];
            }
            foreach ($actors['nodes'] as $node) {
                if (!\is_array($node) || !\is_string($node['path'] ?? null) || ($filter !== '' && !str_contains($node['path'], $filter))) {
                    continue;
                }
                if ($filter !== '') {
                    ++$total;
                }
                if (\count($nodes) < $limit) {
                    $nodes[] = [
                        'path' => $node['path'],
                        'worker' => (string) $slot,
                        'kind' => \is_string($node['kind'] ?? null) ? $node['kind'] : '',
                        'mailbox' => \is_int($node['mailbox'] ?? null) ? $node['mailbox'] : null,
                        'processed' => \is_int($node['processed'] ?? null) ? $node['processed'] : null,
                    ];
                }
            }
        }

        return ['nodes' => $nodes, 'total' => $total];
    }

    public function deadLetters(int $limit): array
    {
        $this->refresh();
        $all = [];
        $seq = 0;
        foreach ($this->views as $slot => $view) {
            $letters = $view['deadLetters'] ?? null;
            if (!\is_array($letters)) {
                continue;
            }
            $last = 0;
            foreach ($letters as $letter) {
                if (!\is_array($letter) || !\is_int($letter['seq'] ?? null) || !\is_float($letter['at'] ?? null) && !\is_int($letter['at'] ?? null)) {
                    continue;
                }
                $last = max($last, $letter['seq']);
                $all[] = [
                    'seq' => 0,
                    'at' => (float) $letter['at'],
                    'worker' => (string) $slot,
                    'recipient' => \is_string($letter['recipient'] ?? null) ? $letter['recipient'] : '',
                    'reason' => \is_string($letter['reason'] ?? null) ? $letter['reason'] : '',
                    'message' => \is_string($letter['message'] ?? null) ? $letter['message'] : '',
                    'sender' => \is_string($letter['sender'] ?? null) ? $letter['sender'] : '',
                ];
            }
            $seq += $last;
        }
        usort($all, static fn(array $a, array $b): int => $a['at'] <=> $b['at']);
        $all = \array_slice($all, -$limit);
        // Numbered so that the last one's seq is the total over the workers.
        $next = $seq - \count($all);
        foreach ($all as $i => $letter) {
            $all[$i]['seq'] = ++$next;
        }

        return $all;
    }

    public function pools(): array
    {
        $this->refresh();
        $rows = [];
        foreach ($this->views as $slot => $view) {
            foreach (\is_array($view['pools'] ?? null) ? $view['pools'] : [] as $pool) {
                if (\is_array($pool) && \is_string($pool['name'] ?? null) && \is_string($pool['kind'] ?? null)
                    && \is_int($pool['open'] ?? null) && \is_int($pool['inUse'] ?? null) && \is_int($pool['waiting'] ?? null) && \is_int($pool['max'] ?? null)) {
                    $rows[] = ['name' => $pool['name'], 'worker' => (string) $slot, 'kind' => $pool['kind'], 'open' => $pool['open'], 'inUse' => $pool['inUse'], 'waiting' => $pool['waiting'], 'max' => $pool['max']];
                }
            }
        }

        return $rows;
    }

    public function cluster(): ?array
    {
        return $this->cluster?->membership();
    }

    /**
     * @param array<int, string|null> $answers
     */
    private function absorb(array $answers): void
    {
        $states = [];
        foreach ($this->pool->workerStates() as $state) {
            $states[$state['slot']] = $state;
        }
        foreach ($answers as $slot => $payload) {
            $document = $payload === null ? null : json_decode($payload, true, 64);
            $ok = \is_array($document) && \is_string($document['incarnation'] ?? null) && \is_array($document['families'] ?? null);
            $this->answered[$slot] = $ok;
            if ($ok) {
                $families = [];
                foreach ($document['families'] as $name => $family) {
                    if (Snapshot::validFamily($family)) {
                        $families[(string) $name] = $family;
                    }
                }
                $this->families[$slot] = ['incarnation' => $document['incarnation'], 'families' => $families];
                $this->views[$slot] = \is_array($document['view'] ?? null) ? $document['view'] : [];
            } else {
                $this->missing[$slot] = ($this->missing[$slot] ?? 0) + 1;
                if (($states[$slot]['pid'] ?? 0) === 0) {
                    unset($this->views[$slot]); // the worker is gone: its actors too
                }
            }
            $own = $this->slotRegistry($slot)->snapshot()['families'];
            $last = $this->families[$slot] ?? ['incarnation' => 'none', 'families' => []];
            $this->snapshots->put((string) $slot, ['incarnation' => $last['incarnation'], 'families' => $last['families'] + $own]);
        }
    }

    private function slotRegistry(int $slot): Registry
    {
        if (isset($this->slotRegistries[$slot])) {
            return $this->slotRegistries[$slot];
        }
        $registry = new Registry();
        $registry->gaugeCallback('nexus.worker.up', 'Whether the worker of this slot runs, is ready and answered the last stats query (1) or not (0).', function () use ($slot): int {
            foreach ($this->pool->workerStates() as $state) {
                if ($state['slot'] === $slot) {
                    return $state['pid'] !== 0 && $state['ready'] && ($this->answered[$slot] ?? false) ? 1 : 0;
                }
            }

            return 0;
        });
        $registry->counterCallback('nexus.worker.restarts', 'Times the worker of this slot died unexpectedly and was replaced.', function () use ($slot): int {
            foreach ($this->pool->workerStates() as $state) {
                if ($state['slot'] === $slot) {
                    return $state['restarts'];
                }
            }

            return 0;
        }, unit: '{restart}', aggregation: Aggregation::PerWorker);
        $registry->counterCallback('nexus.worker.stats_missing', "Stats queries this slot's worker did not answer in time (the master then shows its last figures).", fn(): int => $this->missing[$slot] ?? 0, unit: '{query}', aggregation: Aggregation::PerWorker);

        return $this->slotRegistries[$slot] = $registry;
    }
}
