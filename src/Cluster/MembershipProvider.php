<?php

declare(strict_types=1);

namespace Nexus\Cluster;

use Nexus\Runtime\Future;

/**
 * Where the cluster's membership lives (Orleans' membership table, Proto.Actor's cluster
 * provider): the cluster core sees a versioned list of members and leases, not how it is stored.
 * EtcdMembership keeps it in etcd; a pool on one machine is the trivial case (View::single()).
 *
 * Promises: views come in revision order, each with every member the provider knows of; a node
 * that can no longer be sure it is a member (its lease could expire: etcd unreachable, the lease
 * gone) is told through $onFenced before its lease can expire, and gets no view until it joins
 * again, as a new incarnation.
 */
interface MembershipProvider
{
    /**
     * Registers this node ($self: name, worker addresses, store) under a lease kept alive from
     * then on; resolves to the member as registered, with its incarnation, once the first view
     * (with it) has been passed to $onView.
     *
     * @param \Closure(View): void   $onView   each new view, in order
     * @param \Closure(string): void $onFenced this node must stop hosting now (why); no view follows until join() again
     *
     * @return Future<Member>
     */
    public function join(Member $self, \Closure $onView, \Closure $onFenced): Future;

    /**
     * Tells the other members this node has applied every change up to $revision (it stopped
     * the entities that no longer belong to it); see View::settled().
     */
    public function applied(int $revision): void;

    /**
     * Publishes what this node hosts (JSON, for `nexus cluster status`); best effort.
     */
    public function stats(string $json): void;

    /**
     * Marks this node as leaving: placement gives its entities to the others once it has
     * applied that (it hands them off first).
     *
     * @return Future<null>
     */
    public function markLeaving(): Future;

    /**
     * Leaves the cluster (revokes the lease: the record goes at once) and stops renewing.
     *
     * @return Future<null>
     */
    public function leave(): Future;

    /**
     * Stops renewing and watching without leaving (the lease expires by itself).
     */
    public function close(): void;
}
