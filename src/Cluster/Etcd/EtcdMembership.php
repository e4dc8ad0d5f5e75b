<?php

declare(strict_types=1);

namespace Nexus\Cluster\Etcd;

use Nexus\Cluster\Member;
use Nexus\Cluster\MembershipProvider;
use Nexus\Cluster\View;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Future;
use Nexus\Runtime\Loop;
use Psr\Log\LoggerInterface;

/**
 * The cluster's membership in etcd. Under the cluster's prefix each node keeps, attached to its
 * lease (so they go when it does):
 *
 *     members/<name>#<random>   its record (Member::encode()); the revision that created the key
 *                               is its incarnation
 *     leaving/<name>#<random>   present while it hands its entities off before leaving
 *     applied/<name>#<random>   the revision up to which it has applied membership changes
 *     stats/<name>#<random>     what its workers host (for `nexus cluster status`)
 *
 * It renews its lease every RENEW_FRACTION of the TTL and watches the prefix; every change of the
 * records gives a new View. A change of members or of a leaving mark gives the view a new
 * revision; a new applied mark does not (only settled() changes).
 *
 * Fencing: the lease is renewed from the time each keep-alive was sent, so the node knows a time
 * before which etcd cannot have expired it. FENCE_MARGIN before that time without a renewal (etcd
 * unreachable or too slow), or as soon as etcd says the lease is gone or the record was deleted,
 * the node is fenced ($onFenced): it must stop hosting entities, and gets no view until it joins
 * again, as a new incarnation. The watch, when it breaks, is opened again (a fresh read, then a
 * watch from there) every RETRY seconds while the node is a member.
 */
final class EtcdMembership implements MembershipProvider
{
    /** Seconds between tries to renew or read again after a failure. */
    private const RETRY = 0.5;

    private readonly string $prefix;
    private ?int $lease = null;
    private ?Member $self = null;
    private string $id = '';
    /** Loop time before which etcd cannot have expired the lease. */
    private float $validUntil = 0.0;
    private ?int $renewTimer = null;
    private ?int $fenceTimer = null;
    private ?int $watchRetry = null;
    private bool $renewing = false;
    private bool $member = false;
    private ?EtcdWatch $watch = null;
    /** @var array<string, KeyValue> the records under the prefix, by key */
    private array $records = [];
    private ?View $view = null;
    /** @var (\Closure(View): void)|null */
    private ?\Closure $onView = null;
    /** @var (\Closure(string): void)|null */
    private ?\Closure $onFenced = null;
    private int $appliedWanted = 0;
    private int $appliedWritten = 0;
    private bool $appliedWriting = false;
    private bool $unreachableLogged = false;

    public function __construct(
        private readonly EtcdClient $etcd,
        string $prefix,
        public readonly int $ttl,
        private readonly LoggerInterface $logger,
    ) {
        if ($ttl < 2 || $ttl > 300) {
            throw new \InvalidArgumentException("A lease TTL is 2 to 300 seconds (etcd's minimum is about 2), got {$ttl}.");
        }
        $this->prefix = rtrim($prefix, '/') . '/';
    }

    /**
     * Seconds between renewals.
     */
    public function renewEvery(): float
    {
        return max(0.25, min($this->ttl / 4, 3.0));
    }

    /**
     * Seconds before the lease could expire at which the node is fenced.
     */
    public function fenceMargin(): float
    {
        return max(1.0, $this->ttl * 0.2);
    }

    public function join(Member $self, \Closure $onView, \Closure $onFenced): Future
    {
        $loop = $this->etcd->loop;
        /** @var Deferred<Member> $joined */
        $joined = new Deferred($loop);
        $this->onView = $onView;
        $this->onFenced = $onFenced;
        $this->records = [];
        $this->view = null;
        $this->appliedWanted = $this->appliedWritten = 0;
        $old = $this->lease;
        $loop->async(function () use ($self, $joined, $old): void {
            try {
                if ($old !== null) {
                    $this->etcd->revoke($old)->await(); // the last incarnation's record, if it is still there
                }
                $sentAt = $this->etcd->loop->now();
                $lease = $this->etcd->grantLease($this->ttl)->await();
                $this->lease = $lease->id;
                $this->validUntil = $sentAt + $lease->ttl;
                $this->id = $self->name . '#' . bin2hex(random_bytes(6));
                $incarnation = $this->etcd->put($this->prefix . 'members/' . $this->id, $self->encode(), $lease->id)->await();
                $member = $this->self = new Member($self->name, $incarnation, $self->workers, $self->store, $this->prefix . 'members/' . $this->id);
                $this->member = true;
                $this->unreachableLogged = false;
                $this->scheduleRenewal($this->renewEvery());
                $this->armFence();
                $this->startFrom($this->etcd->range($this->prefix)->await());
                $joined->resolve($member);
            } catch (\Throwable $e) {
                $this->stop();
                $joined->reject($e);
            }
        })->ignore();

        return $joined->future();
    }

    public function applied(int $revision): void
    {
        $this->appliedWanted = max($this->appliedWanted, $revision);
        $this->writeApplied();
    }

    public function markLeaving(): Future
    {
        $lease = $this->lease;
        if (!$this->member || $lease === null) {
            return Future::fulfilled($this->etcd->loop, null);
        }
        /** @var Deferred<null> $done */
        $done = new Deferred($this->etcd->loop);
        $this->etcd->put($this->prefix . 'leaving/' . $this->id, '1', $lease)->onSettle(static function (?\Throwable $error) use ($done): void {
            $error === null ? $done->resolve(null) : $done->reject($error);
        });

        return $done->future();
    }

    public function leave(): Future
    {
        $lease = $this->lease;
        $this->stop();
        $this->lease = null;

        return $lease === null ? Future::fulfilled($this->etcd->loop, null) : $this->etcd->revoke($lease);
    }

    public function close(): void
    {
        $this->stop();
    }

    /**
     * The view as last computed (null before join() or while fenced).
     */
    public function view(): ?View
    {
        return $this->member ? $this->view : null;
    }

    private function stop(): void
    {
        $this->member = false;
        $loop = $this->etcd->loop;
        foreach ([$this->renewTimer, $this->fenceTimer, $this->watchRetry] as $timer) {
            if ($timer !== null) {
                $loop->cancel($timer);
            }
        }
        $this->renewTimer = $this->fenceTimer = $this->watchRetry = null;
        $this->watch?->close();
        $this->watch = null;
    }

    private function fence(string $why): void
    {
        if (!$this->member) {
            return;
        }
        $this->logger->warning('This node stops hosting: {why}.', ['why' => $why]);
        $this->stop();
        if ($this->onFenced !== null) {
            ($this->onFenced)($why);
        }
    }

    // ---- the lease --------------------------------------------------------------------------

    private function scheduleRenewal(float $delay): void
    {
        $loop = $this->etcd->loop;
        if ($this->renewTimer !== null) {
            $loop->cancel($this->renewTimer);
        }
        $this->renewTimer = $loop->delay($delay, function (): void {
            $this->renewTimer = null;
            $this->renew();
        });
    }

    private function renew(): void
    {
        $lease = $this->lease;
        if (!$this->member || $this->renewing || $lease === null) {
            return;
        }
        $this->renewing = true;
        $sentAt = $this->etcd->loop->now();
        $this->etcd->keepAlive($lease)->onSettle(function (?\Throwable $error, mixed $ttl) use ($sentAt, $lease): void {
            $this->renewing = false;
            if (!$this->member || $lease !== $this->lease) {
                return;
            }
            if ($error !== null || !\is_int($ttl)) {
                if (!$this->unreachableLogged) {
                    $this->unreachableLogged = true;
                    $this->logger->warning('Could not renew the cluster lease: {error}; trying again every {retry} s, this node stops hosting {left} s from now without a renewal.', [
                        'error' => $error?->getMessage() ?? 'no answer',
                        'retry' => self::RETRY,
                        'left' => round(max(0.0, $this->validUntil - $this->fenceMargin() - $this->etcd->loop->now()), 2),
                    ]);
                }
                $this->scheduleRenewal(self::RETRY);

                return;
            }
            if ($ttl <= 0) {
                $this->fence('etcd says its lease has expired');

                return;
            }
            if ($this->unreachableLogged) {
                $this->unreachableLogged = false;
                $this->logger->info('The cluster lease is renewed again.');
            }
            $this->validUntil = max($this->validUntil, $sentAt + $ttl);
            $this->armFence();
            $this->scheduleRenewal($this->renewEvery());
        });
    }

    private function armFence(): void
    {
        $loop = $this->etcd->loop;
        if ($this->fenceTimer !== null) {
            $loop->cancel($this->fenceTimer);
        }
        $this->fenceTimer = $loop->delay(max(0.0, $this->validUntil - $this->fenceMargin() - $loop->now()), function (): void {
            $this->fenceTimer = null;
            $this->fence(\sprintf('its cluster lease could not be renewed and could expire within %.1f s', $this->fenceMargin()));
        });
    }

    private function writeApplied(): void
    {
        $lease = $this->lease;
        if (!$this->member || $this->appliedWriting || $lease === null || $this->appliedWanted <= $this->appliedWritten) {
            return;
        }
        $this->appliedWriting = true;
        $revision = $this->appliedWanted;
        $this->etcd->put($this->prefix . 'applied/' . $this->id, (string) $revision, $lease)->onSettle(function (?\Throwable $error) use ($revision): void {
            $this->appliedWriting = false;
            if ($error === null) {
                $this->appliedWritten = max($this->appliedWritten, $revision);
                $this->writeApplied();
            } elseif ($this->member) {
                $this->etcd->loop->delay(self::RETRY, $this->writeApplied(...));
            }
        });
    }

    // ---- the view ---------------------------------------------------------------------------

    /**
     * Reads the prefix afresh, passes the view on and watches from there.
     */
    private function read(): void
    {
        $this->etcd->range($this->prefix)->onSettle(function (?\Throwable $error, mixed $result): void {
            if (!$this->member) {
                return;
            }
            if ($error !== null || !$result instanceof RangeResult) {
                $this->retryWatch();

                return;
            }
            $this->startFrom($result);
        });
    }

    private function startFrom(RangeResult $range): void
    {
        $records = [];
        foreach ($range->kvs as $kv) {
            $records[$kv->key] = $kv;
        }
        $this->records = $records;
        $this->publish($range->revision, true);
        if (!$this->member) {
            return;
        }
        $this->watch = $this->etcd->watch($this->prefix, $range->revision + 1, $this->changed(...), function (\Throwable $why): void {
            if ($this->member) {
                $this->logger->notice('The watch of the cluster membership ended ({why}); reading it again.', ['why' => $why->getMessage()]);
                $this->retryWatch();
            }
        });
    }

    private function retryWatch(): void
    {
        $this->watch?->close();
        $this->watch = null;
        if ($this->watchRetry === null && $this->member) {
            $this->watchRetry = $this->etcd->loop->delay(self::RETRY, function (): void {
                $this->watchRetry = null;
                $this->read();
            });
        }
    }

    /**
     * @param list<WatchEvent> $events
     */
    private function changed(array $events, int $revision): void
    {
        $membership = $applied = false;
        foreach ($events as $event) {
            $key = $event->kv->key;
            if ($event->deleted) {
                unset($this->records[$key]);
            } else {
                $this->records[$key] = $event->kv;
            }
            if (str_starts_with($key, $this->prefix . 'members/') || str_starts_with($key, $this->prefix . 'leaving/')) {
                $membership = true;
            } elseif (str_starts_with($key, $this->prefix . 'applied/')) {
                $applied = true;
            }
        }
        if ($membership || $applied) {
            $this->publish($revision, $membership);
        }
    }

    /**
     * Publishes what this node hosts (for `nexus cluster status`), under its lease.
     */
    public function stats(string $json): void
    {
        $lease = $this->lease;
        if ($this->member && $lease !== null) {
            $this->etcd->put($this->prefix . 'stats/' . $this->id, $json, $lease)->ignore();
        }
    }

    private function publish(int $revision, bool $membership): void
    {
        $self = $this->self;
        if ($self === null || !isset($this->records[$self->key])) {
            $this->fence('its membership record is gone (its lease expired or was revoked)');

            return;
        }
        $members = [];
        foreach ($this->records as $key => $kv) {
            if (!str_starts_with($key, $this->prefix . 'members/')) {
                continue;
            }
            $id = substr($key, \strlen($this->prefix . 'members/'));
            $member = Member::decode($key, $kv->value, $kv->createRevision);
            if ($member === null) {
                $this->logger->warning('Ignoring the malformed membership record {key}.', ['key' => $key]);

                continue;
            }
            $leaving = $this->records[$this->prefix . 'leaving/' . $id] ?? null;
            $applied = $this->records[$this->prefix . 'applied/' . $id] ?? null;
            $members[] = $member->with($leaving !== null, $leaving === null ? 0 : $leaving->createRevision, $applied !== null && ctype_digit($applied->value) ? (int) $applied->value : 0);
        }
        usort($members, static fn(Member $a, Member $b): int => $a->incarnation <=> $b->incarnation);
        $previous = $this->view;
        $view = new View($membership || $previous === null ? max($revision, $previous->revision ?? 0) : $previous->revision, $members);
        if ($previous !== null && $previous->encode() === $view->encode()) {
            return;
        }
        $this->view = $view;
        if ($this->onView !== null) {
            ($this->onView)($view);
        }
    }
}
