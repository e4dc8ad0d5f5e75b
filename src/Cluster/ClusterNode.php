<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Cluster\Etcd\EtcdClient;
use Nexus\Cluster\Etcd\EtcdMembership;
use Nexus\Cluster\Exception\ClusterConfigurationException;
use Nexus\Cluster\Exception\EtcdWaitExpiredException;
use Nexus\Cluster\Exception\JoinInterruptedException;
use Nexus\Cluster\Exception\StoreMismatchException;
use Nexus\Persistence\StoreLocation;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * A node of the cluster as its master process runs it (WorkerPool): the sockets its workers accept
 * links from other nodes on, the checks at join (the store is the cluster's), the membership
 * (registered, kept alive, watched), and the views passed on to the workers, whose "applied"
 * answers it turns into the node's applied mark.
 *
 * - Join: the store's identity (StoreIdentity) must be the one the cluster recorded in etcd (the
 *   first node records its own), else StoreMismatchException: the node does not join. While etcd
 *   does not answer, join() keeps trying (0.2 s doubling to 5 s; bounded by joinWait when set)
 *   and the node is not ready; SIGTERM or SIGINT ends the wait at once.
 * - Fenced (the lease could expire): every worker is told to stop hosting; the node tries to join
 *   again every REJOIN_EVERY seconds, and once it has, as a new incarnation, the pool replaces its
 *   workers by ones with the new node number ($onRejoined).
 * - Leave (SIGTERM): the node marks itself leaving, its workers hand their entities off (the view
 *   moves them), and once it has applied that (or after leaveTimeout) the pool stops the workers;
 *   then revoke() ends the membership.
 */
final class ClusterNode
{
    private const REJOIN_EVERY = 1.0;
    private const STATS_EVERY = 2.0;
    /** The most members membership() lists (the admin view's bound). */
    public const MAX_MEMBERS_SHOWN = 256;

    private readonly EtcdClient $etcd;
    private readonly MembershipProvider $membership;
    /** @var array<int, resource> the listening sockets for other nodes, by worker */
    private array $sockets = [];
    /** @var list<string> */
    private array $addresses = [];
    private string $secret = '';
    private string $storeId = '';
    private ?Member $self = null;
    private ?View $view = null;
    private ?string $fenced = null;
    /** The wait for etcd as the node starts (join()). */
    private ?EtcdWait $wait = null;
    private int $workers = 0;
    /** @var array<int, int> the generation of each worker that counts, by worker */
    private array $generations = [];
    /** @var array<int, int> what each (counting) worker applied, by worker */
    private array $applied = [];
    private int $appliedMarked = 0;
    /** @var array<int, array{int, int}> entities and named actors each worker hosts */
    private array $hosted = [];
    private ?int $rejoinTimer = null;
    private ?int $statsTimer = null;
    private bool $leaving = false;
    /** @var Deferred<null>|null */
    private ?Deferred $left = null;
    /** @var \Closure(string, int): void sends a line to the workers of a node number */
    private \Closure $broadcast;
    /** @var \Closure(int): void */
    private \Closure $onRejoined;

    public function __construct(
        public readonly Loop $loop,
        public readonly ClusterOptions $options,
        private readonly StoreLocation $store,
        private readonly LoggerInterface $logger,
    ) {
        $this->etcd = new EtcdClient($loop, $options->etcd, 5.0);
        $this->membership = new EtcdMembership($this->etcd, $options->prefix, $options->leaseTtl, $logger);
        $this->broadcast = static function (): void {};
        $this->onRejoined = static function (): void {};
    }

    /**
     * @param \Closure(string, int): void $broadcast  sends a line to every worker that runs with that node number
     * @param \Closure(int): void         $onRejoined the node joined again as a new incarnation: replace the workers
     */
    public function connect(\Closure $broadcast, \Closure $onRejoined): void
    {
        $this->broadcast = $broadcast;
        $this->onRejoined = $onRejoined;
    }

    /**
     * Opens the sockets the workers accept links from other nodes on: worker w on the advertised
     * port + w, or on a free port when it is 0.
     *
     * @throws ClusterConfigurationException when a port cannot be listened on
     */
    public function open(int $workers): void
    {
        $this->workers = $workers;
        $options = $this->options;
        $bind = self::bracketed($options->listenHost ?? $options->advertiseHost);
        $advertised = self::bracketed($options->advertiseHost);
        $base = $options->listenPort ?? $options->advertisePort;
        for ($w = 0; $w < $workers; ++$w) {
            $port = $base === 0 ? 0 : $base + $w;
            $errno = 0;
            $errstr = '';
            $socket = @stream_socket_server("tcp://{$bind}:{$port}", $errno, $errstr, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, stream_context_create(['socket' => ['backlog' => 511, 'tcp_nodelay' => true]]));
            if ($socket === false) {
                throw new ClusterConfigurationException("Could not listen for other nodes on {$bind}:{$port} (worker {$w}): {$errstr}; is --advertise an address of this machine and the port free (worker w uses port + w)?");
            }
            $name = (string) stream_socket_get_name($socket, false);
            $this->sockets[$w] = $socket;
            $bound = (int) substr($name, (int) strrpos($name, ':') + 1);
            $this->addresses[] = "tcp://{$advertised}:" . ($options->advertisePort === 0 ? $bound : $options->advertisePort + $w);
        }
    }

    private static function bracketed(string $host): string
    {
        return str_contains($host, ':') && !str_starts_with($host, '[') ? "[{$host}]" : $host;
    }

    /**
     * @return resource
     */
    public function socket(int $worker): mixed
    {
        return $this->sockets[$worker];
    }

    public function secret(): string
    {
        return $this->secret;
    }

    /**
     * This node's number: the incarnation it joined as (0 before it has).
     */
    public function node(): int
    {
        return $this->self->incarnation ?? 0;
    }

    /**
     * Whether this node serves as a member now, for /readyz: joined, in the current view, not
     * fenced (it could not renew its lease) and not leaving; with what the check shows.
     *
     * @return array{bool, string}
     */
    public function readiness(): array
    {
        if ($this->fenced !== null) {
            return [false, "fenced: {$this->fenced}"];
        }
        if ($this->leaving) {
            return [false, 'leaving the cluster'];
        }
        $waitingFor = $this->wait?->lastError();
        if ($waitingFor !== null) {
            return [false, "waiting for etcd at {$this->options->etcd} to join: {$waitingFor}"];
        }
        $self = $this->self;
        $view = $this->view;
        if ($self === null || $view === null || $view->member($self->incarnation) === null) {
            return [false, 'not a member of the current view yet'];
        }

        return [true, \sprintf('node %s (incarnation %d), one of %d members, view revision %d', $this->options->node, $self->incarnation, \count($view->members), $view->revision)];
    }

    /**
     * This node's membership as the admin view shows it: its own state, the view's revision and
     * its members (at most MAX_MEMBERS_SHOWN of them, in incarnation order; `total` counts all),
     * this node marked `self`. Cheap: read from the view in hand, nothing asked of etcd.
     *
     * @return array{node: string, incarnation: int, state: string, detail: string, revision: int, settled: bool, total: int, members: list<array{node: string, incarnation: int, address: string, workers: int, self: bool, state: string}>}
     */
    public function membership(): array
    {
        $view = $this->view;
        $incarnation = $this->node();
        $members = [];
        foreach ($view === null ? [] : $view->members as $member) {
            if (\count($members) >= self::MAX_MEMBERS_SHOWN) {
                break;
            }
            $self = $member->incarnation === $incarnation;
            $members[] = [
                'node' => $member->name,
                'incarnation' => $member->incarnation,
                'address' => preg_replace('#^tcp://#', '', $member->workers[0] ?? '') ?? '',
                'workers' => \count($member->workers),
                'self' => $self,
                'state' => ($self ? $this->state() : self::stateOf($member))->value,
            ];
        }
        [, $detail] = $this->readiness();

        return [
            'node' => $this->options->node,
            'incarnation' => $incarnation,
            'state' => $this->state()->value,
            'detail' => $detail,
            'revision' => $view->revision ?? 0,
            'settled' => $view !== null && $view->settled(),
            'total' => $view === null ? 0 : \count($view->members),
            'members' => $members,
        ];
    }

    /**
     * Where this node stands now.
     */
    public function state(): MemberState
    {
        if ($this->fenced !== null) {
            return MemberState::Fenced;
        }
        $self = $this->self;
        $mine = $self === null ? null : $this->view?->member($self->incarnation);
        if ($this->leaving || $mine?->leaving === true) {
            return MemberState::Leaving;
        }
        if ($mine === null || $this->wait?->lastError() !== null) {
            return MemberState::Joining;
        }

        return self::stateOf($mine);
    }

    private static function stateOf(Member $member): MemberState
    {
        if ($member->leaving) {
            return MemberState::Leaving;
        }

        // It has applied the view that added it once its applied mark covers its own join.
        return $member->applied >= $member->incarnation ? MemberState::Member : MemberState::Joining;
    }

    /**
     * Checks the store and joins the cluster; awaits (call it before the workers are forked).
     *
     * While etcd does not answer (EtcdUnavailableException) it keeps trying (EtcdWait: 0.2 s
     * doubling to 5 s, logged); readiness() says so meanwhile. It gives up after
     * ClusterOptions::$joinWait seconds when that is not 0, and returns at once on SIGTERM or
     * SIGINT (JoinInterruptedException): the loop runs meanwhile (an admin listener answers), but
     * nothing else of the node does.
     *
     * @throws StoreMismatchException
     * @throws EtcdWaitExpiredException when etcd did not answer within joinWait
     * @throws JoinInterruptedException when the process was told to stop while it waited
     * @throws \Nexus\Cluster\Exception\ClusterException when etcd answers with an error
     * @throws \Nexus\Persistence\Exception\PersistenceException when the store cannot be read
     */
    public function join(): int
    {
        $store = $this->store->openStore($this->loop);
        try {
            $this->storeId = StoreIdentity::of($store);
        } finally {
            $store->close();
        }
        $this->wait = new EtcdWait($this->loop, $this->options->node, $this->options->etcd, $this->options->joinWait, $this->logger);
        $this->wait->run($this->attemptJoin(...));
        $this->statsTimer = $this->loop->repeat(self::STATS_EVERY, $this->publishStats(...));
        $this->loop->unreference($this->statsTimer);

        return $this->node();
    }

    /**
     * One try at the etcd side of the join: the store recorded, the secret, the membership.
     *
     * @return Future<null>
     */
    private function attemptJoin(): Future
    {
        return $this->loop->async(function (): null {
            $recorded = $this->etcd->createIfAbsent($this->options->prefix . 'store', $this->storeId)->await();
            if ($recorded->value !== $this->storeId) {
                throw new StoreMismatchException(\sprintf(
                    "This node's store (%s, identity %s) is not the one the cluster's members share (identity %s): give every node the same --store (PostgreSQL), or for nodes on one machine the same --data-dir.",
                    $this->store->describe(),
                    $this->storeId,
                    $recorded->value,
                ));
            }
            $this->secret = $this->options->secret
                ?? $this->etcd->createIfAbsent($this->options->prefix . 'secret', bin2hex(random_bytes(32)))->await()->value;
            $this->register()->await();

            return null;
        });
    }

    /**
     * The line a worker of node number $node gets when it starts: the current view, or why it must
     * not host; null for a worker of an earlier incarnation (it is being replaced).
     */
    public function lineFor(int $node): ?string
    {
        if ($node !== $this->node()) {
            return null;
        }
        if ($this->fenced !== null) {
            return "fence {$this->fenced}";
        }

        return $this->view === null ? null : 'view ' . $this->view->encode();
    }

    /**
     * A worker of node number $node, generation $generation, started: it is the one whose answers
     * count for its slot from now on.
     */
    public function workerStarted(int $worker, int $generation, int $node): void
    {
        if ($node === $this->node()) {
            $this->generations[$worker] = $generation;
            unset($this->applied[$worker], $this->hosted[$worker]);
        }
    }

    /**
     * A line a worker sent ("applied <revision>", "hosted <entities> <named>").
     */
    public function workerSaid(int $worker, int $generation, string $line): void
    {
        if (($this->generations[$worker] ?? -1) !== $generation) {
            return;
        }
        if (str_starts_with($line, 'applied ')) {
            $this->applied[$worker] = max($this->applied[$worker] ?? 0, (int) substr($line, 8));
            $this->markApplied();
        } elseif (str_starts_with($line, 'hosted ')) {
            $parts = explode(' ', $line);
            $this->hosted[$worker] = [(int) ($parts[1] ?? 0), (int) ($parts[2] ?? 0)];
        }
    }

    /**
     * Hands this node's entities off (it is marked leaving, the view moves them); settles once
     * they are, or after leaveTimeout.
     *
     * @return Future<null>
     */
    public function leave(): Future
    {
        if ($this->left !== null) {
            return $this->left->future();
        }
        /** @var Deferred<null> $left */
        $left = $this->left = new Deferred($this->loop);
        $this->leaving = true;
        if ($this->self === null || $this->fenced !== null) {
            $left->resolve(null);

            return $left->future();
        }
        $this->logger->info('Node {node} leaves the cluster: handing its entities off.', ['node' => $this->options->node]);
        $timer = $this->loop->delay($this->options->leaveTimeout, function () use ($left): void {
            if ($left->tryResolve(null)) {
                $this->logger->warning('The hand-off of this node\'s entities did not finish within {timeout} s; leaving anyway.', ['timeout' => $this->options->leaveTimeout]);
            }
        });
        $left->future()->onSettle(fn() => $this->loop->cancel($timer));
        $this->membership->markLeaving()->onSettle(function (?\Throwable $error) use ($left): void {
            if ($error !== null) {
                $this->logger->warning('Could not mark this node leaving ({error}); it leaves without handing its entities off.', ['error' => $error->getMessage()]);
                $left->tryResolve(null);
            }
        });

        return $left->future();
    }

    /**
     * Ends the membership (revokes the lease: the other nodes see this one gone at once).
     *
     * @return Future<null>
     */
    public function revoke(): Future
    {
        if ($this->rejoinTimer !== null) {
            $this->loop->cancel($this->rejoinTimer);
            $this->rejoinTimer = null;
        }
        if ($this->statsTimer !== null) {
            $this->loop->cancel($this->statsTimer);
            $this->statsTimer = null;
        }
        $done = $this->membership->leave();
        $done->onSettle(function (?\Throwable $error): void {
            if ($error !== null) {
                $this->logger->warning('Could not revoke the cluster lease ({error}); it expires by itself.', ['error' => $error->getMessage()]);
            }
            $this->etcd->close();
        });

        return $done;
    }

    public function closeSockets(): void
    {
        foreach ($this->sockets as $socket) {
            @fclose($socket);
        }
        $this->sockets = [];
    }

    /**
     * @return Future<Member>
     */
    private function register(): Future
    {
        $joined = $this->membership->join(new Member($this->options->node, 0, $this->addresses, $this->storeId), $this->viewed(...), $this->fence(...));
        $joined->onSettle(function (?\Throwable $error, mixed $member): void {
            if ($member instanceof Member) {
                $this->self = $member;
                $this->fenced = null;
                $this->appliedMarked = 0;
                $this->logger->info('Node {node} joined the cluster as incarnation {incarnation} ({view}).', [
                    'node' => $this->options->node,
                    'incarnation' => $member->incarnation,
                    'view' => $this->view?->describe() ?? 'no view yet',
                ]);
            }
        });

        return $joined;
    }

    private function viewed(View $view): void
    {
        $previous = $this->view;
        $this->view = $view;
        if ($previous === null || $previous->revision !== $view->revision) {
            $this->logger->info('Cluster view {view}.', ['view' => $view->describe()]);
        }
        $node = $this->node();
        if ($node !== 0) {
            ($this->broadcast)('view ' . $view->encode(), $node);
        }
        $this->markApplied();
        $this->checkLeft();
    }

    private function fence(string $why): void
    {
        $this->fenced = $why;
        ($this->broadcast)("fence {$why}", $this->node());
        if ($this->leaving) {
            $this->left?->tryResolve(null);

            return;
        }
        $this->scheduleRejoin();
    }

    private function scheduleRejoin(): void
    {
        if ($this->rejoinTimer !== null || $this->leaving) {
            return;
        }
        $this->rejoinTimer = $this->loop->delay(self::REJOIN_EVERY, function (): void {
            $this->rejoinTimer = null;
            $before = $this->node();
            $this->view = null;
            $this->register()->onSettle(function (?\Throwable $error) use ($before): void {
                if ($error !== null) {
                    $this->logger->notice('Could not join the cluster again yet ({error}); trying again in {delay} s.', ['error' => $error->getMessage(), 'delay' => self::REJOIN_EVERY]);
                    $this->scheduleRejoin();

                    return;
                }
                if ($this->node() !== $before) {
                    $this->generations = $this->applied = $this->hosted = [];
                    ($this->onRejoined)($this->node());
                }
            });
        });
    }

    /**
     * Once every worker has applied the current view, tells the cluster.
     */
    private function markApplied(): void
    {
        $view = $this->view;
        if ($view === null || $this->fenced !== null || $this->self === null || $view->revision <= $this->appliedMarked) {
            return;
        }
        for ($w = 0; $w < $this->workers; ++$w) {
            if (($this->applied[$w] ?? 0) < $view->revision) {
                return;
            }
        }
        $this->appliedMarked = $view->revision;
        $this->membership->applied($view->revision);
    }

    /**
     * Leaving: done once the view marks this node leaving and its applied mark covers that.
     */
    private function checkLeft(): void
    {
        $self = $this->self;
        $mine = $self === null ? null : $this->view?->member($self->incarnation);
        if ($this->left !== null && $mine !== null && $mine->leaving && $mine->applied >= $mine->leavingSince) {
            $this->left->tryResolve(null);
        }
    }

    private function publishStats(): void
    {
        if ($this->self === null || $this->fenced !== null) {
            return;
        }
        $workers = [];
        for ($w = 0; $w < $this->workers; ++$w) {
            [$entities, $named] = $this->hosted[$w] ?? [0, 0];
            $workers[] = ['entities' => $entities, 'named' => $named];
        }
        $this->membership->stats(json_encode(['workers' => $workers, 'at' => time()], \JSON_THROW_ON_ERROR));
    }
}
